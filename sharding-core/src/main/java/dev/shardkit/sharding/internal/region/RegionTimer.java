package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.machine.TimerTable;

/**
 * The {@link RegionMachine}'s timers, as keys of its {@link TimerTable}: a firing carries the
 * generation it was started with, so one cancelled or restarted on its way is ignored.
 */
sealed interface RegionTimer {

  /** Every retry interval: register again, ask again for held homes, ask again to be shut down. */
  record RetryTick() implements RegionTimer {
    static final RetryTick INSTANCE = new RetryTick();
  }

  /** Every hand-off timeout: forget the hand-off markers of moves that never began here. */
  record SweepEarlyMarkers() implements RegionTimer {
    static final SweepEarlyMarkers INSTANCE = new SweepEarlyMarkers();
  }

  /** A caller was still sending by an older table: look again whether the first waiting action may run. */
  record QuietRecheck() implements RegionTimer {
    static final QuietRecheck INSTANCE = new QuietRecheck();
  }

  /** A shard with remembered entities stopped unexpectedly: start it again, which starts them. */
  record RestartShard(String shardId) implements RegionTimer {}
}
