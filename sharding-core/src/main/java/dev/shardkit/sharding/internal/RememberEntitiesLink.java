package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.internal.RememberedUpdates.Batch;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import java.time.Duration;
import java.util.Set;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * A shard's side of its remember-entities store: reads it, writes the changes one batch at a time
 * ({@link RememberedUpdates}), and retries a failed read or write after a {@link Backoff}. Results
 * come back to the shard as messages ({@link Loaded}, {@link LoadFailed}, {@link Written},
 * {@link WriteFailed}, {@link Retry}), which it hands back here. Owned by the shard actor; not
 * thread-safe.
 */
final class RememberEntitiesLink {

  record Loaded(Set<String> entityIds) implements NoSerializationVerificationNeeded {}

  record LoadFailed(Throwable cause) implements NoSerializationVerificationNeeded {}

  record Written(Batch batch) implements NoSerializationVerificationNeeded {}

  record WriteFailed(Batch batch, Throwable cause) implements NoSerializationVerificationNeeded {}

  /** A failed read or write is due to be tried again. */
  enum Retry implements NoSerializationVerificationNeeded { LOAD, WRITE }

  /** Retries wait this long at first, twice as long after each further failure, up to 5 s. */
  private static final Backoff RETRY = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(5), 2);

  private final ActorContext<Object> ctx;
  private final RememberEntitiesStore store;
  /** Names the shard in the log. */
  private final String who;
  private final RememberedUpdates updates = new RememberedUpdates();
  private final Backoff.Retries loads = RETRY.retries();
  private final Backoff.Retries writes = RETRY.retries();
  private Cancellable retryTimer;

  RememberEntitiesLink(ActorContext<Object> ctx, RememberEntitiesStore store, String who) {
    this.ctx = ctx;
    this.store = store;
    this.who = who;
  }

  /** Reads the store; {@link Loaded} or {@link LoadFailed} follows. */
  void load() {
    ctx.pipeToSelf(store.load(), (ids, error) -> error == null ? new Loaded(ids) : new LoadFailed(error));
  }

  /** The entity started and must be remembered; written with the next batch. */
  void started(String entityId) {
    updates.started(entityId);
  }

  /** The entity passivated and must be forgotten; written at once, or after the write in flight. */
  void stopped(String entityId) {
    updates.stopped(entityId);
    flush();
  }

  /** Starts the next write if none is in flight. */
  void flush() {
    Batch batch = updates.nextBatch();
    if (batch != null) {
      ctx.pipeToSelf(store.update(batch.started(), batch.stopped()),
          (ok, error) -> error == null ? new Written(batch) : new WriteFailed(batch, error));
    }
  }

  Set<String> loaded(Loaded loaded) {
    loads.succeeded();
    return loaded.entityIds();
  }

  void loadFailed(LoadFailed failed) {
    Duration retry = loads.failed();
    ctx.getLog().warn("{} could not read its remembered entities from {} ({}); retrying in {} ms, its messages "
        + "wait meanwhile", who, store.describe(), String.valueOf(failed.cause()), retry.toMillis());
    retryTimer = ctx.scheduleOnce(retry, ctx.getSelf(), Retry.LOAD);
  }

  /** A batch is written: the next one starts. @return the entities whose start it wrote */
  Set<String> written(Written written) {
    if (!updates.inFlight(written.batch())) {
      return Set.of(); // the answer to a write of the shard's previous incarnation
    }
    updates.written();
    writes.succeeded();
    flush();
    return written.batch().started();
  }

  void writeFailed(WriteFailed failed) {
    if (!updates.inFlight(failed.batch())) {
      return;
    }
    updates.failed();
    Duration retry = writes.failed();
    ctx.getLog().warn("{} could not write {} remembered-entity change(s) to {} ({}); retrying in {} ms, new "
        + "entities wait meanwhile", who, failed.batch().size(), store.describe(), String.valueOf(failed.cause()),
        retry.toMillis());
    retryTimer = ctx.scheduleOnce(retry, ctx.getSelf(), Retry.WRITE);
  }

  void retry(Retry what) {
    if (what == Retry.LOAD) {
      load();
    } else {
      flush();
    }
  }

  /** Whether every change is written: a shard handing off may stop. */
  boolean settled() {
    return updates.settled();
  }

  /** The shard stopped. */
  void close() {
    if (retryTimer != null) {
      retryTimer.cancel();
    }
    store.close();
  }
}
