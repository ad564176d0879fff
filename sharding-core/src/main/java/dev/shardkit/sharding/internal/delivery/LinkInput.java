package dev.shardkit.sharding.internal.delivery;

import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryAck;
import org.apache.pekko.actor.typed.ActorRef;

/** What the {@link LinkMachine} is told: the link's messages, as values. */
sealed interface LinkInput {

  /** Something waits in the outbox. */
  record Drain() implements LinkInput {
    static final Drain INSTANCE = new Drain();
  }

  /** The receiver acknowledged every batch up to {@code ack.seq()}, and may ask for the later ones again. */
  record Ack(DeliveryAck ack) implements LinkInput {}

  /** The destination's node is reachable again: send what is unacknowledged now. */
  record ResendNow() implements LinkInput {
    static final ResendNow INSTANCE = new ResendNow();
  }

  /** The resend check started as {@code generation} is due. */
  record ResendCheckFired(long generation) implements LinkInput {}

  /** The destination is gone: stop, and hand back to {@code replyTo} what did not reach it. */
  record Close(ActorRef<Object> replyTo) implements LinkInput {}

  /**
   * The destination's node is reachable again: send what is unacknowledged now (an empty batch if
   * nothing is), and tell {@code replyTo} once a batch sent from now on is acknowledged.
   */
  record Probe(ActorRef<Object> replyTo) implements LinkInput {}

  /**
   * The destination's node was downed: take nothing more from the outbox (what waits there goes
   * back on {@link Close}); what is in flight may still be sent again.
   */
  record Hold() implements LinkInput {
    static final Hold INSTANCE = new Hold();
  }

  /** Tell {@code replyTo} once everything handed over so far has been acknowledged. */
  record Flush(ActorRef<Object> replyTo) implements LinkInput {}
}
