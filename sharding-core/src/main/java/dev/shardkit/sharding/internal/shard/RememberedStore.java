package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.internal.machine.Backoff;
import dev.shardkit.sharding.internal.shard.RememberedUpdates.Batch;
import java.time.Duration;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A shard's side of its remember-entities store, as decisions: one read or write at a time, the
 * changes batched meanwhile ({@link RememberedUpdates}), how long to wait before a failed read or
 * write is tried again ({@link Backoff}), and which answers are to the request in flight. Every
 * request has an id, unique over the shard actor's incarnations, so that an answer to an earlier
 * request (of a failed incarnation) is never taken for the answer to the current one. Owned by the
 * shard's machine ({@link ShardMachine}); not thread-safe.
 */
final class RememberedStore {

  /** A write to make: the request's id and its changes. */
  record Write(long id, Batch batch) {}

  /** A write failed: how many changes it had, and how long until it is tried again. */
  record Failure(int changes, Duration retryIn) {}

  private final RememberedUpdates updates = new RememberedUpdates();
  private final Backoff.Retries loads;
  private final Backoff.Retries writes;
  private long nextId;
  /** The read in flight; 0 for none. */
  private long reading;
  /** The write in flight; 0 for none. */
  private long writing;

  /**
   * @param retry how long failed reads and writes wait before they are tried again
   * @param incarnation the shard actor's incarnation ({@link ShardCarryOver.Taken#incarnation}):
   *     its requests' ids are its own
   */
  RememberedStore(Backoff retry, int incarnation) {
    this.loads = retry.retries();
    this.writes = retry.retries();
    this.nextId = ((long) incarnation << 32) + 1;
  }

  /** A read is to start. @return its id */
  long read() {
    reading = nextId++;
    return reading;
  }

  /** Whether {@code readId} is the read in flight. */
  boolean isReading(long readId) {
    return reading != 0 && readId == reading;
  }

  /** The read in flight succeeded. */
  void loaded() {
    reading = 0;
    loads.succeeded();
  }

  /** The read in flight failed. @return how long to wait before reading again */
  Duration loadFailed() {
    reading = 0;
    return loads.failed();
  }

  /**
   * The read in flight did not go out (the node's delivery gate is closed); it is to start again
   * once the gate opens, with no back-off.
   *
   * @return false if {@code readId} is not the read in flight
   */
  boolean readRefused(long readId) {
    if (!isReading(readId)) {
      return false;
    }
    reading = 0;
    return true;
  }

  /** Whether a read is in flight. */
  boolean reading() {
    return reading != 0;
  }

  /** The entity started and must be remembered: written with the next batch. */
  void started(String entityId) {
    updates.started(entityId);
  }

  /** The entity passivated and must be forgotten: written with the next batch. */
  void stopped(String entityId) {
    updates.stopped(entityId);
  }

  /** The next write, if none is in flight and something is pending; else null. */
  @Nullable Write flush() {
    Batch batch = updates.nextBatch();
    if (batch == null) {
      return null;
    }
    writing = nextId++;
    return new Write(writing, batch);
  }

  /**
   * A write is durable.
   *
   * @return the entities whose start it wrote; null if {@code batchId} is not the write in flight
   */
  @Nullable Set<String> written(long batchId) {
    if (!isWriting(batchId)) {
      return null;
    }
    writing = 0;
    writes.succeeded();
    return updates.written().started();
  }

  /**
   * A write failed: its changes are written again with the next batch.
   *
   * @return what failed and when to try again; null if {@code batchId} is not the write in flight
   */
  @Nullable Failure writeFailed(long batchId) {
    if (!isWriting(batchId)) {
      return null;
    }
    writing = 0;
    int changes = updates.inFlight().size();
    updates.failed();
    return new Failure(changes, writes.failed());
  }

  /**
   * The write in flight did not go out (the node's delivery gate is closed): its changes are
   * written with the next batch, once the gate opens, with no back-off.
   *
   * @return false if {@code batchId} is not the write in flight
   */
  boolean writeRefused(long batchId) {
    if (!isWriting(batchId)) {
      return false;
    }
    writing = 0;
    updates.failed();
    return true;
  }

  private boolean isWriting(long batchId) {
    return writing != 0 && batchId == writing;
  }

  /** Whether every change is written: a shard handing off may stop. */
  boolean settled() {
    return updates.settled();
  }
}
