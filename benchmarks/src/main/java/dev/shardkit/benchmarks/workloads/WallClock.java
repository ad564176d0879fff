package dev.shardkit.benchmarks.workloads;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Microseconds since the epoch: a clock that the JVMs of one run on one machine share, so that a
 * moment seen in one JVM can be compared with one seen in another ({@code System.nanoTime} has an
 * origin per JVM).
 */
final class WallClock {
  private WallClock() {}

  static long micros() {
    return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
  }
}
