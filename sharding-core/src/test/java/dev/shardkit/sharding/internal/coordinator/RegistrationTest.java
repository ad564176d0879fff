package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RegistrationTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  private static ActorRef<Object> r(int n) {
    return refs.region(n);
  }

  @Test
  void aNewRegionIsRecordedBeforeTheHomesItReports() {
    List<CoordinatorEvent> reported = List.of(new ShardHomeAllocated("a", r(1)));
    Registration registration = Registration.decide(CoordinatorState.empty(), r(1), false, reported);
    assertFalse(registration.ignored());
    assertTrue(registration.isNew());
    assertEquals(List.of(new RegionRegistered(r(1)), new ShardHomeAllocated("a", r(1))), registration.events());
  }

  @Test
  void aKnownRegionRegisteringAgainOnlyAddsTheHomesItReports() {
    CoordinatorState state = CoordinatorState.empty().applied(new RegionRegistered(r(1)));
    List<CoordinatorEvent> reported = List.of(new ShardHomeAllocated("b", r(1)));
    Registration registration = Registration.decide(state, r(1), false, reported);
    assertFalse(registration.isNew());
    assertEquals(reported, registration.events());
    assertEquals(List.of(), Registration.decide(state, r(1), false, List.of()).events());
  }

  @Test
  void aProxyIsRecordedOnce() {
    Registration first = Registration.decide(CoordinatorState.empty(), r(2), true, List.of());
    assertTrue(first.isNew());
    assertEquals(List.of(new ProxyRegistered(r(2))), first.events());
    CoordinatorState state = CoordinatorState.empty().applied(new ProxyRegistered(r(2)));
    Registration again = Registration.decide(state, r(2), true, List.of());
    assertFalse(again.ignored());
    assertFalse(again.isNew());
    assertEquals(List.of(), again.events());
  }

  @Test
  void aRegionRegisteringAsAProxyIsIgnored() {
    CoordinatorState state = CoordinatorState.empty().applied(new RegionRegistered(r(3)));
    Registration registration = Registration.decide(state, r(3), true, List.of());
    assertTrue(registration.ignored());
    assertFalse(registration.isNew());
    assertEquals(List.of(), registration.events());
  }
}
