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
 * the stash is full, further messages are refused (they are asked again): counted, and warned
 * about once per load (the stash has no room again until the state is loaded). When the state is
 * loaded, the stash is replayed into the behaviour the coordinator builds from it; told to stop,
 * it stops. A coordinator whose write was refused as superseded loads again through here.
 */
final class CoordinatorLoading {

  private record Loaded(LoadedCoordinatorState loaded) implements NoSerializationVerificationNeeded {}

  private record LoadFailed(Throwable cause) implements NoSerializationVerificationNeeded {}

  private enum RetryLoad implements NoSerializationVerificationNeeded { INSTANCE }

  private final CoordinatorSpec spec;
  private final ActorContext<Object> context;
  private final TimerScheduler<Object> timers;
  private final StashBuffer<Object> stash;
  private final Function<LoadedCoordinatorState, Behavior<Object>> loaded;
  private final Backoff.Retries retries = CoordinatorStoreLink.STORE_BACKOFF.retries();
  private final Set<Object> stashed = new HashSet<>();
  private final OverflowEpisode stashFull;

  private CoordinatorLoading(CoordinatorSpec spec, ActorContext<Object> context, TimerScheduler<Object> timers,
      StashBuffer<Object> stash, OverflowEpisode stashFull, Function<LoadedCoordinatorState, Behavior<Object>> loaded) {
    this.spec = spec;
    this.stashFull = stashFull;
    this.context = context;
    this.timers = timers;
    this.stash = stash;
    this.loaded = loaded;
  }

  /**
   * Loads the coordinator's state.
   *
   * @param stashFull counts the messages refused because the stash was full
   * @param loaded builds the coordinator's next behaviour from the loaded state and term
   */
  static Behavior<Object> behavior(CoordinatorSpec spec, ActorContext<Object> context, TimerScheduler<Object> timers,
      StashBuffer<Object> stash, OverflowEpisode stashFull, Function<LoadedCoordinatorState, Behavior<Object>> loaded) {
    return new CoordinatorLoading(spec, context, timers, stash, stashFull, loaded).load();
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
      if (stashFull.refused()) {
        context.getLog().warn("Coordinator of [{}] is loading its state and its stash of {} messages (the larger of "
            + "buffer-size and 1000) is full; refusing requests until it has loaded (regions ask again); further "
            + "refusals are counted, not logged", spec.typeName(), stash.capacity());
      }
      stashed.remove(message);
    } else {
      stash.stash(message);
    }
    return Behaviors.same();
  }
}
