package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.internal.machine.Backoff;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorStateSupersededException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;

/**
 * The coordinator machine's side of its stores once its state is loaded: the writes of its
 * decisions over {@link CoordinatorWrites} (one write in flight, what is decided meanwhile in the
 * next; what makes a decision known runs only once the store holds it) and, with
 * remember-entities, the read of the shards that may have remembered entities. Each is retried
 * with {@link #BACKOFF} until it succeeds, on its own: a failing read does not slow down the
 * retries of a write, and known shards keep working while a write fails. Each call carries an id,
 * and only the answer to the call in progress counts: an answer to an earlier incarnation's call
 * is ignored. A write refused as superseded is not retried ({@link #superseded}). Owned by the
 * machine; not thread-safe.
 */
final class CoordinatorStore {

  /** The back-off of every retried store operation: the load, the writes, the remembered shards. */
  static final Backoff BACKOFF = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10), 2);

  private final CoordinatorWrites writes;
  private final CoordinatorEffects out;
  private final LongSupplier ids;
  private final Backoff.Retries writeRetries = BACKOFF.retries();
  private final Backoff.Retries readRetries = BACKOFF.retries();
  /** The id of the write in flight (or failed and waiting to be retried); 0 if none is. */
  private long writeId;
  /** The machine's time of the input that started the write in flight, in nanoseconds. */
  private final LongSupplier now;
  private long writeStarted;
  /** The id of the read in progress; 0 if none is. */
  private long readId;

  /**
   * @param ids a source of ids no call of this coordinator had before
   * @param now the machine's time of the input it handles, in nanoseconds (a write's latency is
   *     measured with it)
   */
  CoordinatorStore(CoordinatorWrites writes, CoordinatorEffects out, LongSupplier ids, LongSupplier now) {
    this.writes = writes;
    this.out = out;
    this.ids = ids;
    this.now = now;
  }

  CoordinatorWrites writes() {
    return writes;
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

  /** Reads the shards that may have remembered entities; the answer comes back by {@link #read}. */
  void readRememberedShards() {
    readId = ids.getAsLong();
    out.add(new CoordinatorEffect.ReadRememberedShards(readId));
  }

  /** Whether {@code id} is the write in flight: an answer to anything else is stale. */
  boolean isCurrentWrite(long id) {
    return id != 0 && id == writeId;
  }

  /** The write in flight is stored: its effects run, and what was decided meanwhile is written. */
  void stored() {
    out.report(new CoordinatorNotice.Stored(writes.inFlightEvents(), latency()));
    writeId = 0;
    writeRetries.succeeded();
    writes.written().forEach(Runnable::run);
    flush();
  }

  /** The write in flight failed (not as superseded): it is retried after a back-off, with what is decided meanwhile. */
  void failed(Throwable cause) {
    Duration backoff = writeRetries.failed();
    out.report(new CoordinatorNotice.StoreFailed(writes.inFlightEvents(), cause, backoff, latency()));
    out.startTimer(new CoordinatorTimer.RetryStore(), backoff);
  }

  /** The retry's back-off passed. */
  void retry() {
    write(writes.retry());
  }

  /**
   * The read's answer, if it answers the read in progress.
   *
   * @return the shards that may have remembered entities; empty if the answer is stale
   */
  Optional<Set<String>> read(long id, Set<String> shardIds) {
    if (id == 0 || id != readId) {
      return Optional.empty();
    }
    readId = 0;
    readRetries.succeeded();
    return Optional.of(shardIds);
  }

  /** The read failed: it is tried again after a back-off. Ignored if stale. */
  void readFailed(long id, Throwable cause) {
    if (id == 0 || id != readId) {
      return;
    }
    readId = 0;
    Duration backoff = readRetries.failed();
    out.report(new CoordinatorNotice.RememberedReadFailed(cause, backoff));
    out.startTimer(new CoordinatorTimer.RetryRememberedRead(), backoff);
  }

  private void flush() {
    CoordinatorWrites.Next next = writes.next();
    next.run().forEach(Runnable::run);
    if (next.write() != null) {
      write(next.write());
    }
  }

  private Duration latency() {
    return Duration.ofNanos(now.getAsLong() - writeStarted);
  }

  private void write(CoordinatorWrites.Batch batch) {
    writeId = ids.getAsLong();
    writeStarted = now.getAsLong();
    out.add(new CoordinatorEffect.Store(writeId, batch.events(), batch.after()));
  }

  /**
   * Whether a write failed because the store refused it as superseded (another coordinator took
   * over, {@link CoordinatorStateSupersededException}): that is not retried, the coordinator loads
   * again.
   */
  static boolean superseded(Throwable cause) {
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause instanceof CoordinatorStateSupersededException;
  }
}
