package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Function;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * A coordinator's first behaviour: it reads its state from the store, retrying with back-off
 * until the store answers, and keeps what arrives meanwhile in a bounded stash. Regions repeat
 * their registrations and requests while they wait, so a protocol message is stashed once; once
 * the stash is full, further messages are dropped (they are asked again). When the state is
 * loaded, the stash is replayed into the behaviour the coordinator builds from it; told to stop,
 * it stops. A coordinator whose write was refused as superseded loads again through here.
 */
final class CoordinatorLoading {

  private record Loaded(LoadedCoordinatorState loaded) implements NoSerializationVerificationNeeded {}

  private record LoadFailed(Throwable cause) implements NoSerializationVerificationNeeded {}

  private enum RetryLoad implements NoSerializationVerificationNeeded { INSTANCE }

  private static final Duration STASH_FULL_WARNING_INTERVAL = Duration.ofSeconds(10);

  private final CoordinatorSpec spec;
  private final ActorContext<Object> context;
  private final TimerScheduler<Object> timers;
  private final StashBuffer<Object> stash;
  private final Function<LoadedCoordinatorState, Behavior<Object>> loaded;
  private final Backoff.Retries retries = CoordinatorStoreLink.STORE_BACKOFF.retries();
  private final Set<Object> stashed = new HashSet<>();
  private long lastStashFullWarning = System.nanoTime() - STASH_FULL_WARNING_INTERVAL.toNanos();

  private CoordinatorLoading(CoordinatorSpec spec, ActorContext<Object> context, TimerScheduler<Object> timers,
      StashBuffer<Object> stash, Function<LoadedCoordinatorState, Behavior<Object>> loaded) {
    this.spec = spec;
    this.context = context;
    this.timers = timers;
    this.stash = stash;
    this.loaded = loaded;
  }

  /**
   * Loads the coordinator's state.
   *
   * @param loaded builds the coordinator's next behaviour from the loaded state and term
   */
  static Behavior<Object> behavior(CoordinatorSpec spec, ActorContext<Object> context, TimerScheduler<Object> timers,
      StashBuffer<Object> stash, Function<LoadedCoordinatorState, Behavior<Object>> loaded) {
    return new CoordinatorLoading(spec, context, timers, stash, loaded).load();
  }

  private Behavior<Object> load() {
    context.pipeToSelf(CoordinatorStoreLink.attempt(spec.store()::load),
        (state, error) -> error == null ? new Loaded(state) : new LoadFailed(error));
    return Behaviors.receive(Object.class)
        .onMessage(Loaded.class, l -> stash.unstashAll(loaded.apply(l.loaded())))
        .onMessage(LoadFailed.class, f -> {
          Duration backoff = retries.failed();
          context.getLog().warn("Coordinator of [{}] could not load its state ({}); retrying in {} ms",
              spec.typeName(), f.cause(), backoff.toMillis());
          timers.startSingleTimer(RetryLoad.INSTANCE, backoff);
          return Behaviors.same();
        })
        .onMessageEquals(RetryLoad.INSTANCE, this::load)
        .onMessageEquals(ShardCoordinator.Stop.INSTANCE, Behaviors::stopped)
        // Loading again after a write was refused as superseded: an answer to a call made for the
        // state held before belongs to nothing that exists any more.
        .onMessage(CoordinatorStoreLink.Reply.class, stale -> Behaviors.same())
        .onAnyMessage(this::stashOrDrop)
        .build();
  }

  private Behavior<Object> stashOrDrop(Object message) {
    if (message instanceof ShardingProtocol && !stashed.add(message)) {
      return Behaviors.same();
    }
    if (stash.isFull()) {
      long now = System.nanoTime();
      if (now - lastStashFullWarning > STASH_FULL_WARNING_INTERVAL.toNanos()) {
        lastStashFullWarning = now;
        context.getLog().warn("Coordinator of [{}] is busy (loading its state) and its stash of {} is full; dropping "
            + "requests until it catches up (regions ask again)", spec.typeName(), stash.capacity());
      }
      stashed.remove(message);
    } else {
      stash.stash(message);
    }
    return Behaviors.same();
  }
}
