package dev.shardkit.sharding.internal.delivery;

import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Where the {@link LinkMachine}'s effects are carried out: the destination, the outbox's count of
 * what is in transit, the drop reporting, a timer, the region and the log. The link actor
 * implements it with Pekko; a simulation of the cluster with its own network and clock.
 */
interface LinkPorts {

  /** Sends a batch to the destination. */
  void sendBatch(DeliveryBatch batch);

  /** Tells the outbox how many messages the link holds taken out and unacknowledged. */
  void inTransit(int messages);

  /** Reports an item (a Deliver or a marker) that cannot travel, and drops it. */
  void drop(Object item, String reason);

  /** (Re)starts the resend check: {@link LinkInput.ResendCheckFired} with {@code generation} after {@code delayNanos}. */
  void startResendCheck(long generation, long delayNanos);

  void cancelResendCheck();

  /** Hands back, to {@code replyTo}, what did not reach the destination, each list oldest first. */
  void closed(ActorRef<Object> replyTo, List<Object> unacknowledged, List<Object> unsent);

  /** Tells {@code replyTo} that the destination acknowledged a batch sent after its probe. */
  void confirmed(ActorRef<Object> replyTo);

  /** Tells {@code replyTo} that everything handed over before its flush has been acknowledged. */
  void flushed(ActorRef<Object> replyTo);

  void report(LinkNotice notice);

  /** The link is done: it stops. */
  void stopped();
}
