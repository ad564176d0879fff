package dev.shardkit.benchmarks.workloads;

import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.spi.ShardingTelemetry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the up-front placement workload learns from sharding's telemetry in one JVM: when each
 * region on it had been told the homes of every shard ({@link ShardingEvent.HomesTold}, one per
 * {@code ShardHomes} message a region takes in). Named in the workload's configuration
 * ({@link #CONFIG}); sharding creates one per actor system, and all of a JVM's share what they saw.
 */
public final class UpFrontTelemetry implements ShardingTelemetry {
  /** The configuration that binds it. */
  static final String CONFIG = "shardkit.sharding.telemetry.bindings = [\"" + UpFrontTelemetry.class.getName()
      + "\"]\n";

  /** Per region path: homes it learned in other regions plus those placed in it, and when it reached each sum. */
  private static final Map<String, long[]> KNOWN = new ConcurrentHashMap<>();

  @Override
  public void onEvent(ShardingEvent event) {
    if (event instanceof ShardingEvent.HomesTold told) {
      long now = WallClock.micros();
      long homes = told.learned() + told.placedHere();
      KNOWN.merge(told.region(), new long[] {homes, now}, (a, b) -> new long[] {a[0] + b[0], b[1]});
    }
  }

  /**
   * The regions of {@code regionName} (the actor's name) in this JVM that know the homes of at
   * least {@code shards} shards, and when the last of them came to know them.
   */
  static Known known(String regionName, int shards) {
    int regions = 0;
    long last = 0;
    for (Map.Entry<String, long[]> e : KNOWN.entrySet()) {
      if (e.getKey().endsWith("/" + regionName) && e.getValue()[0] >= shards) {
        regions++;
        last = Math.max(last, e.getValue()[1]);
      }
    }
    return new Known(regions, last);
  }

  /** How many regions know every home, and since when the last of them does ({@link WallClock#micros}). */
  record Known(int regions, long lastMicros) {
    String line() {
      return regions + " " + lastMicros;
    }

    static Known parse(String line) {
      String[] p = line.trim().split(" ");
      return new Known(Integer.parseInt(p[0]), Long.parseLong(p[1]));
    }
  }
}
