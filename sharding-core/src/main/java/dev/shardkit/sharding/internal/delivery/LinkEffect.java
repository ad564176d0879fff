package dev.shardkit.sharding.internal.delivery;

import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What the {@link LinkMachine} decides to do, as values: per batch, never per message. Each effect
 * carries out itself through {@link LinkPorts} ({@link #carryOut}): a new effect cannot compile
 * without saying how, and a new port not without every implementation of it.
 */
sealed interface LinkEffect {

  void carryOut(LinkPorts ports);

  record SendBatch(DeliveryBatch batch) implements LinkEffect {
    @Override
    public void carryOut(LinkPorts ports) {
      ports.sendBatch(batch);
    }
  }

  /** The messages taken out and not acknowledged, now; the counts a quiet link takes are made once. */
  record InTransit(int messages) implements LinkEffect {
    private static final InTransit[] COMMON = new InTransit[1024];

    static {
      for (int i = 0; i < COMMON.length; i++) {
        COMMON[i] = new InTransit(i);
      }
    }

    static InTransit of(int messages) {
      return messages >= 0 && messages < COMMON.length ? COMMON[messages] : new InTransit(messages);
    }

    @Override
    public void carryOut(LinkPorts ports) {
      ports.inTransit(messages);
    }
  }

  /** An item that cannot travel: not serializable, or larger than a frame. */
  record Drop(Object item, String reason) implements LinkEffect {
    @Override
    public void carryOut(LinkPorts ports) {
      ports.drop(item, reason);
    }
  }

  record StartResendCheck(long generation, long delayNanos) implements LinkEffect {
    @Override
    public void carryOut(LinkPorts ports) {
      ports.startResendCheck(generation, delayNanos);
    }
  }

  record CancelResendCheck() implements LinkEffect {
    @Override
    public void carryOut(LinkPorts ports) {
      ports.cancelResendCheck();
    }
  }

  /**
   * What did not reach the gone destination: sent and not acknowledged (the destination may or may
   * not have had them), then never sent, each oldest first.
   */
  record Closed(ActorRef<Object> replyTo, List<Object> unacknowledged, List<Object> unsent) implements LinkEffect {
    @Override
    public void carryOut(LinkPorts ports) {
      ports.closed(replyTo, unacknowledged, unsent);
    }
  }

  /** The destination acknowledged a batch sent after {@code replyTo}'s probe. */
  record Confirmed(ActorRef<Object> replyTo) implements LinkEffect {
    @Override
    public void carryOut(LinkPorts ports) {
      ports.confirmed(replyTo);
    }
  }

  record Flushed(ActorRef<Object> replyTo) implements LinkEffect {
    @Override
    public void carryOut(LinkPorts ports) {
      ports.flushed(replyTo);
    }
  }

  record Report(LinkNotice notice) implements LinkEffect {
    @Override
    public void carryOut(LinkPorts ports) {
      ports.report(notice);
    }
  }

  record Stopped() implements LinkEffect {
    @Override
    public void carryOut(LinkPorts ports) {
      ports.stopped();
    }
  }
}
