package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.shardkit.sharding.internal.region.RegionStatus.Registered;
import dev.shardkit.sharding.internal.region.RegionStatus.Snapshot;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A region's published status: each change keeps the others. */
class RegionStatusTest {

  @Test
  void eachChangeKeepsWhatTheOthersSet() {
    RegionStatus status = new RegionStatus("Cart", true);
    assertEquals(new Snapshot("Cart", true, Optional.empty(), false, false), status.snapshot());
    status.registered("c", 2);
    status.stopAsked();
    assertEquals(new Snapshot("Cart", true, Optional.of(new Registered("c", 2)), true, false), status.snapshot());
    status.stopped();
    status.registering();
    assertEquals(new Snapshot("Cart", true, Optional.empty(), true, true), status.snapshot());
  }
}
