package dev.shardkit.sharding.internal.delivery;

import dev.shardkit.sharding.internal.InternalApi;
import org.apache.pekko.actor.typed.ActorRef;
import org.slf4j.event.Level;

/**
 * What the {@link LinkMachine} has to say, as values: the link's shell logs each with
 * {@link #render()} at {@link #level()}, and renders it only if that level is on.
 */
@InternalApi
public sealed interface LinkNotice {

  Level level();

  String render();

  /** Batches went unacknowledged past the resend timeout, now {@code timeoutMillis}, and are sent again. */
  record ResentOverdue(ActorRef<Object> destination, int batches, long timeoutMillis) implements LinkNotice {
    @Override
    public Level level() {
      return Level.DEBUG;
    }

    @Override
    public String render() {
      return "Delivery to " + destination.path() + ": " + batches + " batch(es) not acknowledged within "
          + timeoutMillis + " ms; sending them again";
    }
  }

  /** Why unacknowledged batches are sent again before their timeout. */
  enum Why {
    RECEIVER_ASKED("the receiver asked for them"),
    REACHABLE_AGAIN("the destination is reachable again");

    private final String text;

    Why(String text) {
      this.text = text;
    }
  }

  /** Every unacknowledged batch is sent again now. */
  record ResentNow(ActorRef<Object> destination, int batches, Why why) implements LinkNotice {
    @Override
    public Level level() {
      return Level.DEBUG;
    }

    @Override
    public String render() {
      return "Delivery to " + destination.path() + ": sending " + batches + " unacknowledged batch(es) again: "
          + why.text;
    }
  }
}
