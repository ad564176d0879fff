package dev.shardkit.sharding.internal.machine;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.telemetry.TelemetryBindings;
import dev.shardkit.sharding.spi.ShardingEvent;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Dropped;
import org.slf4j.Logger;

/**
 * Counts messages a region or its shards could not deliver and warns about them at most once per
 * interval, so that a flood of drops cannot flood the log too. A region shares its reporter with
 * its shards, so its count covers theirs; drops are rare, so a lock is cheap enough.
 */
@InternalApi
public final class DropReporter {
  private final Logger log;
  private final String typeName;
  private final Consumer<Object> deadLetters;
  private final long intervalNanos;
  private final LongSupplier clock;
  /** Where each drop is reported as a telemetry event; null for none. */
  private final TelemetryBindings telemetry;
  private long dropped;
  private long droppedSinceWarning;
  private long lastWarning;
  private boolean warned;

  /**
   * @param deadLetters where dropped messages are published, as {@link Dropped} events (the
   *     system's event stream; dead-letter listeners and tests see them there)
   */
  public DropReporter(Logger log, String typeName, Duration interval, Consumer<Object> deadLetters) {
    this(log, typeName, interval, deadLetters, System::nanoTime, null);
  }

  /** Also reports each drop to {@code telemetry}'s bindings, as it publishes its dead letter. */
  public DropReporter(Logger log, String typeName, Duration interval, Consumer<Object> deadLetters,
      TelemetryBindings telemetry) {
    this(log, typeName, interval, deadLetters, System::nanoTime, telemetry);
  }

  public DropReporter(Logger log, String typeName, Duration interval, Consumer<Object> deadLetters, LongSupplier clock) {
    this(log, typeName, interval, deadLetters, clock, null);
  }

  private DropReporter(Logger log, String typeName, Duration interval, Consumer<Object> deadLetters,
      LongSupplier clock, TelemetryBindings telemetry) {
    this.telemetry = telemetry != null && telemetry.active() ? telemetry : null;
    this.log = log;
    this.typeName = typeName;
    this.deadLetters = deadLetters;
    this.intervalNanos = interval.toNanos();
    this.clock = clock;
  }

  /**
   * Publishes a dropped message as a dead letter, counts it, and warns when the last warning is
   * older than the interval.
   *
   * @param recipient the actor that dropped it (for the dead letter)
   * @return true if this call logged a warning
   */
  public synchronized boolean dropped(Object message, String reason, ActorRef recipient) {
    deadLetters.accept(Dropped.apply(message, "shardkit [" + typeName + "]: " + reason, recipient));
    if (telemetry != null) {
      telemetry.emit(new ShardingEvent.MessageDropped(telemetry.node(), typeName, reason));
    }
    dropped++;
    droppedSinceWarning++;
    long now = clock.getAsLong();
    if (!warned || now - lastWarning >= intervalNanos) {
      log.warn("Entity type [{}]: {} ({} message(s) dropped to dead letters since the last warning, {} in all)",
          typeName, reason, droppedSinceWarning, dropped);
      warned = true;
      lastWarning = now;
      droppedSinceWarning = 0;
      return true;
    }
    return false;
  }

  /**
   * Warns about the drops since the last warning once the interval has passed, if there were any:
   * without it, a burst of drops that ends inside one interval would be reported by its first
   * drop alone. The region calls it periodically.
   *
   * @return true if this call logged a warning
   */
  public synchronized boolean summarize() {
    long now = clock.getAsLong();
    if (droppedSinceWarning == 0 || now - lastWarning < intervalNanos) {
      return false;
    }
    log.warn("Entity type [{}]: {} more message(s) dropped to dead letters since the last warning, {} in all",
        typeName, droppedSinceWarning, dropped);
    lastWarning = now;
    droppedSinceWarning = 0;
    return true;
  }

  /** Messages dropped since this reporter was created. */
  public synchronized long total() {
    return dropped;
  }
}
