package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.spi.CoordinatorStateStore;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.TypedActorContext;

/**
 * Closes a coordinator's state store however the coordinator stops (told to, failed for good, or
 * stopped from outside), so that its successor elsewhere is the only writer. A restart after a
 * failure is not a stop: the store stays open, and the next incarnation reloads its state from it
 * ({@link CoordinatorSupervision}).
 */
final class CloseStoreOnStop extends BehaviorInterceptor<Object, Object> {
  private final CoordinatorStateStore store;

  CloseStoreOnStop(CoordinatorStateStore store) {
    super(Object.class);
    this.store = store;
  }

  @Override
  public Behavior<Object> aroundReceive(TypedActorContext<Object> ctx, Object msg, ReceiveTarget<Object> target) {
    return target.apply(ctx, msg);
  }

  @Override
  public Behavior<Object> aroundSignal(TypedActorContext<Object> ctx, Signal signal, SignalTarget<Object> target) {
    if (signal instanceof PostStop) {
      store.close();
    }
    return target.apply(ctx, signal);
  }
}
