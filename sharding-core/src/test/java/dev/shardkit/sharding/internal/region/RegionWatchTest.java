package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RegionWatchTest {
  private final RegionWatch<String> regions = new RegionWatch<>();

  @Test
  void aRegionIsWatchedOnce() {
    assertTrue(regions.watch("r1"));
    assertFalse(regions.watch("r1"));
    assertTrue(regions.watch("r2"));
  }

  @Test
  void aTerminatedRegionIsDeadAndIsWatchedAgainOnlyIfAskedAgain() {
    regions.watch("r1");
    assertFalse(regions.isDead("r1"));
    regions.terminated("r1");
    assertTrue(regions.isDead("r1"));
    assertFalse(regions.isDead("r2"));
    assertTrue(regions.watch("r1"), "no longer watched: its termination was seen");
  }

  @Test
  void theOldestDeathsAreForgottenFirst() {
    for (int i = 0; i <= RegionWatch.DEAD_REMEMBERED; i++) {
      regions.terminated("r" + i);
    }
    assertFalse(regions.isDead("r0"), "the oldest of one too many is forgotten");
    assertTrue(regions.isDead("r1"));
    assertTrue(regions.isDead("r" + RegionWatch.DEAD_REMEMBERED));
  }
}
