package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ShutdownProgressTest {

  @Test
  void aRegionHostingHandingOffOrHoldingAnythingIsStillHandingOff() {
    assertEquals(ShutdownProgress.HANDING_OFF, ShutdownProgress.of(1, false, 0, 0));
    assertEquals(ShutdownProgress.HANDING_OFF, ShutdownProgress.of(0, true, 0, 0));
    assertEquals(ShutdownProgress.HANDING_OFF, ShutdownProgress.of(0, false, 3, 0));
  }

  @Test
  void pendingLinksMatterOnlyOnceEverythingIsHandedOff() {
    assertEquals(ShutdownProgress.HANDING_OFF, ShutdownProgress.of(1, false, 0, 5));
    assertEquals(ShutdownProgress.LINKS_DRAINING, ShutdownProgress.of(0, false, 0, 5));
  }

  @Test
  void aRegionWithNothingLeftIsDone() {
    assertEquals(ShutdownProgress.DONE, ShutdownProgress.of(0, false, 0, 0));
  }
}
