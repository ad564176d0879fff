package dev.shardkit.sharding.internal.health;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import dev.shardkit.sharding.internal.InternalApi;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * How long the readiness check counts the conditions that heal by themselves (a region
 * registering, a closed delivery gate; see {@link Readiness}): always until the check first finds
 * this node's member Up, then for {@code shardkit.sharding.health-check.readiness.disabled-after}
 * more, or for ever when that is {@code off}.
 *
 * <p>The window starts when the node is Up rather than when it was first ready, so that a node
 * whose region cannot register does not stay unready for ever: in a rolling update that adds an
 * entity type, the type's coordinator can only run on the oldest node, which runs the previous
 * version and never starts it; a new node that waited for its registration would never become
 * ready, and the update would stall.
 *
 * <p>Thread-safe. The clock is passed in (monotonic nanoseconds), so tests control it.
 *
 * <p>Internal API: public only for the health checks in {@code dev.shardkit.sharding}.
 */
@InternalApi
public final class ReadinessWindow {

  /** The key under {@code shardkit.sharding}. */
  public static final String DISABLED_AFTER = "health-check.readiness.disabled-after";

  private final LongSupplier clock;
  /** Empty: the window never closes. */
  private final Optional<Duration> disabledAfter;
  private boolean upSeen;
  private long upSince;

  /**
   * @param clock monotonic nanoseconds ({@code System::nanoTime})
   * @param disabledAfter how long after the node is first seen Up registration still counts;
   *     empty for always
   * @throws IllegalArgumentException if an argument is null, or {@code disabledAfter} is negative
   */
  public ReadinessWindow(LongSupplier clock, Optional<Duration> disabledAfter) {
    if (clock == null || disabledAfter == null) {
      throw new IllegalArgumentException("ReadinessWindow needs a clock and an optional duration, got "
          + (clock == null ? "a null clock" : "a null duration"));
    }
    if (disabledAfter.isPresent() && disabledAfter.get().isNegative()) {
      throw new IllegalArgumentException("shardkit.sharding." + DISABLED_AFTER + " must not be negative, got "
          + disabledAfter.get());
    }
    this.clock = clock;
    this.disabledAfter = disabledAfter;
  }

  /**
   * The window configured under {@code shardkit.sharding} ({@code off}, or a duration of at least 0).
   *
   * @throws IllegalArgumentException naming the key if it is missing, not a duration nor
   *     {@code off}, or negative
   */
  public static ReadinessWindow fromConfig(Config sharding, LongSupplier clock) {
    try {
      Object raw = sharding.getValue(DISABLED_AFTER).unwrapped();
      boolean off = raw instanceof Boolean b ? !b : raw instanceof String s && s.equalsIgnoreCase("off");
      return new ReadinessWindow(clock, off ? Optional.empty() : Optional.of(sharding.getDuration(DISABLED_AFTER)));
    } catch (ConfigException e) {
      throw new IllegalArgumentException("Invalid shardkit.sharding." + DISABLED_AFTER + ": " + e.getMessage(), e);
    }
  }

  /**
   * Whether registration and the gate count for the check made now.
   *
   * @param memberUp whether this node's member is Up now; the first check that says so starts the
   *     window
   */
  public synchronized boolean registrationChecked(boolean memberUp) {
    if (disabledAfter.isEmpty()) {
      return true;
    }
    long now = clock.getAsLong();
    if (!upSeen) {
      if (!memberUp) {
        return true;
      }
      upSeen = true;
      upSince = now;
    }
    return now - upSince < disabledAfter.get().toNanos();
  }
}
