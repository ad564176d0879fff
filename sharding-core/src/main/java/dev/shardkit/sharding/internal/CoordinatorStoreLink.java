package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorStateSupersededException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * A coordinator's calls to its stores once its state is loaded, made from inside the coordinator
 * actor: the writes of its decisions over {@link CoordinatorWrites} (one write in flight, what is
 * decided meanwhile in the next; what makes a decision known runs only once the store holds it)
 * and, with remember-entities, the read of the shards that may have remembered entities. Each is
 * retried with {@link #STORE_BACKOFF} until it succeeds, on its own: a failing read does not slow
 * down the retries of a write, and known shards keep working while a write fails. The answers come
 * back to the coordinator as {@link Reply} messages, which it hands to {@link #onReply}. Owned by
 * the coordinator actor; not thread-safe. A write refused as superseded is not retried here
 * ({@link #superseded}).
 */
final class CoordinatorStoreLink {

  /** The back-off of every retried store operation: the load, the writes, the remembered shards. */
  static final Backoff STORE_BACKOFF = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10), 2);

  /** A store's answer, or a retry's timer, on its way back to the coordinator. Local only. */
  sealed interface Reply extends NoSerializationVerificationNeeded {}

  /**
   * A store's answer names the link that asked: after a restart, the answer to the previous
   * incarnation's write must not be taken for the answer to this one's. (Retry timers need no
   * name: a restart cancels them.)
   */
  private sealed interface Answer extends Reply {
    CoordinatorStoreLink link();
  }

  private record Stored(CoordinatorStoreLink link) implements Answer {}

  private record StoreFailed(CoordinatorStoreLink link, List<CoordinatorEvent> events, Throwable cause)
      implements Answer {}

  private enum RetryStore implements Reply { INSTANCE }

  private record RememberedShards(CoordinatorStoreLink link, Set<String> shardIds) implements Answer {}

  private record RememberedShardsFailed(CoordinatorStoreLink link, Throwable cause) implements Answer {}

  private enum ReadRememberedShards implements Reply { INSTANCE }

  private final CoordinatorSpec spec;
  private final ActorContext<Object> context;
  private final TimerScheduler<Object> timers;
  private final CoordinatorWrites writes;
  private final Backoff.Retries writeRetries = STORE_BACKOFF.retries();
  private final Backoff.Retries readRetries = STORE_BACKOFF.retries();

  CoordinatorStoreLink(CoordinatorSpec spec, ActorContext<Object> context, TimerScheduler<Object> timers,
      CoordinatorWrites writes) {
    this.spec = spec;
    this.context = context;
    this.timers = timers;
    this.writes = writes;
  }

  /** Decides {@code events} now and stores them; {@code afterwards} runs once they are stored. */
  void persist(List<CoordinatorEvent> events, Runnable afterwards) {
    writes.decide(events, afterwards);
    flush();
  }

  /** Runs {@code action} once everything decided so far is stored: at once if it is. */
  void afterDurable(Runnable action) {
    persist(List.of(), action);
  }

  /** Reads the shards that may have remembered entities; they come back through {@link #onReply}. */
  void readRememberedShards() {
    context.pipeToSelf(attempt(spec.rememberedShards().orElseThrow()),
        (ids, error) -> error == null ? new RememberedShards(this, ids) : new RememberedShardsFailed(this, error));
  }

  /**
   * Handles a store's answer or a retry's timer: runs the effects of a stored write, or retries
   * after a failure.
   *
   * @return the shards that may have remembered entities, if this is the read's answer
   */
  Optional<Set<String>> onReply(Reply reply) {
    if (reply instanceof Answer answer && answer.link() != this) {
      context.getLog().debug("Coordinator of [{}] ignores {}, an answer to its previous incarnation", spec.typeName(),
          reply);
    } else if (reply instanceof RememberedShards read) {
      readRetries.succeeded();
      return Optional.of(read.shardIds());
    } else if (reply instanceof RememberedShardsFailed f) {
      Duration backoff = readRetries.failed();
      context.getLog().warn("Coordinator of [{}] could not read which shards have remembered entities ({}); "
          + "retrying in {} ms", spec.typeName(), f.cause(), backoff.toMillis());
      timers.startSingleTimer(ReadRememberedShards.INSTANCE, backoff);
    } else if (reply == ReadRememberedShards.INSTANCE) {
      readRememberedShards();
    } else if (reply instanceof StoreFailed f) {
      Duration backoff = writeRetries.failed();
      List<CoordinatorEvent> events = f.events();
      context.getLog().warn("Coordinator of [{}] could not store {} ({}); retrying in {} ms; known shards keep "
          + "working", spec.typeName(), events.size() == 1 ? events.get(0) : events.size() + " changes ("
          + events.get(0) + ", ...)", f.cause(), backoff.toMillis());
      timers.startSingleTimer(RetryStore.INSTANCE, backoff);
    } else if (reply == RetryStore.INSTANCE) {
      write(writes.retry());
    } else if (reply instanceof Stored) {
      writeRetries.succeeded();
      writes.written().forEach(Runnable::run);
      flush();
    }
    return Optional.empty();
  }

  private void flush() {
    CoordinatorWrites.Next next = writes.next();
    next.run().forEach(Runnable::run);
    if (next.write() != null) {
      write(next.write());
    }
  }

  private void write(CoordinatorWrites.Batch batch) {
    context.pipeToSelf(attempt(() -> spec.store().store(batch.events(), batch.after())),
        (ok, error) -> error == null ? new Stored(this) : new StoreFailed(this, batch.events(), error));
  }

  /**
   * Whether {@code reply} is a write the store refused because another coordinator took over
   * ({@link CoordinatorStateSupersededException}): that is not retried, the coordinator loads again.
   */
  static boolean superseded(Reply reply) {
    if (reply instanceof StoreFailed f) {
      Throwable cause = f.cause();
      while (cause instanceof CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      return cause instanceof CoordinatorStateSupersededException;
    }
    return false;
  }

  /** A call that throws counts as a failed stage, so it is retried like one. */
  static <T> CompletionStage<T> attempt(Supplier<CompletionStage<T>> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
