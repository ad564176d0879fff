package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.wire.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GracefulShutdownReq;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterProxy;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardStopped;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;

/** A region's registration; what it would send and watch is recorded, not done. */
class RegionRegistrationTest {
  // Inboxes only provide ActorRef identities; nothing is sent to them.
  private static final ActorRef<Object> self = TestInbox.create("region").getRef();
  private static final ActorRef<Object> proxy = TestInbox.create("proxy").getRef();
  private static final ActorRef<Object> coordinatorA = TestInbox.create("coordinator-a").getRef();
  private static final ActorRef<Object> coordinatorB = TestInbox.create("coordinator-b").getRef();

  private record Told(ActorRef<Object> to, Object message) {}

  private final List<Told> told = new ArrayList<>();
  private final List<ActorRef<Object>> watched = new ArrayList<>();
  private final RegionStatus status = new RegionStatus("Type", false);

  private RegionRegistration registration(boolean proxyOnly) {
    return new RegionRegistration(self, proxy, proxyOnly, () -> Set.of("1", "2"),
        (to, message) -> told.add(new Told(to, message)), watched::add, new RegionRegistration.Status() {
          @Override
          public void registered(String coordinator, long term) {
            status.registered(coordinator, term);
          }

          @Override
          public void registering() {
            status.registering();
          }
        });
  }

  @Test
  void registersThroughTheProxyWithTheShardsItHosts() {
    registration(false).register();
    assertEquals(List.of(new Told(proxy, new Register(self, Set.of("1", "2")))), told);
  }

  @Test
  void aProxyOnlyRegionRegistersAsAProxyAndHandsNothingOff() {
    RegionRegistration registration = registration(true);
    registration.register();
    registration.askToHandOffAll();
    assertEquals(List.of(new Told(proxy, new RegisterProxy(self))), told);
  }

  @Test
  void aNewCoordinatorIsWatchedAndRegisteredWithDirectlyOnce() {
    RegionRegistration registration = registration(false);
    assertEquals(CoordinatorFence.Ack.NEW, registration.acknowledged(coordinatorA, 1).outcome());
    assertEquals(CoordinatorFence.Ack.SAME, registration.acknowledged(coordinatorA, 1).outcome(), "the same coordinator again");
    assertEquals(List.of(coordinatorA), watched);
    assertEquals(List.of(new Told(coordinatorA, new Register(self, Set.of("1", "2")))), told);
    assertTrue(registration.registered());
    assertSame(coordinatorA, registration.coordinator());
  }

  /**
   * Cluster simulation seed 1862 (with small queues): the coordinator's announcement acknowledged a
   * region that had not registered, the registration the region then sent was lost to a full
   * queue, and the coordinator, which never knew the region, left it out of a hand-off: it went on
   * routing to the shard's old home, and lost a message when that node left.
   */
  @Test
  void anAcknowledgementIsConfirmedByRegisteringAgainAtEachRetryUntilTheCoordinatorAcknowledgesAgain() {
    RegionRegistration registration = registration(false);
    registration.acknowledged(coordinatorA, 1); // the announcement
    Told direct = new Told(coordinatorA, new Register(self, Set.of("1", "2")));
    assertEquals(List.of(direct), told, "registered with it directly");

    registration.retry(List::of);
    registration.retry(List::of);
    assertEquals(List.of(direct, direct, direct), told, "again at each retry, that registration perhaps lost");

    assertEquals(CoordinatorFence.Ack.SAME, registration.acknowledged(coordinatorA, 1).outcome());
    registration.retry(List::of);
    assertEquals(List.of(direct, direct, direct), told, "acknowledged again: the coordinator stored it");
  }

  @Test
  void anOlderCoordinatorsAcknowledgementChangesNothingAndANewerOneReplacesIt() {
    RegionRegistration registration = registration(false);
    registration.acknowledged(coordinatorB, 5);
    told.clear();
    watched.clear();
    assertEquals(CoordinatorFence.Ack.REFUSED, registration.acknowledged(coordinatorA, 4).outcome());
    assertEquals(CoordinatorFence.Ack.REFUSED, registration.acknowledged(coordinatorA, 5).outcome(), "another at its term");
    assertSame(coordinatorB, registration.coordinator());
    assertEquals(List.of(), told, "nothing is sent to a refused coordinator");
    assertFalse(registration.actsOn(4));
    assertTrue(registration.actsOn(5));

    assertEquals(CoordinatorFence.Ack.NEW, registration.acknowledged(coordinatorA, 6).outcome());
    assertSame(coordinatorA, registration.coordinator());
    assertEquals(List.of(coordinatorA), watched);
    assertEquals(List.of(new Told(coordinatorA, new Register(self, Set.of("1", "2")))), told);
    assertFalse(registration.actsOn(5), "the replaced coordinator's homes are refused");
    assertTrue(registration.actsOn(6));
  }

  @Test
  void aRestartedCoordinatorAtANewTermIsRegisteredWithAgain() {
    RegionRegistration registration = registration(false);
    registration.acknowledged(coordinatorA, 1);
    told.clear();
    assertEquals(CoordinatorFence.Ack.NEW, registration.acknowledged(coordinatorA, 2).outcome());
    assertEquals(List.of(new Told(coordinatorA, new Register(self, Set.of("1", "2")))), told);
    assertFalse(registration.actsOn(1));
  }

  @Test
  void aLostCoordinatorsTermStaysSoThatOnlyANewerOneAcknowledgesAgain() {
    RegionRegistration registration = registration(false);
    registration.acknowledged(coordinatorA, 3);
    registration.terminated(coordinatorA);
    assertFalse(registration.actsOn(3), "nothing is acted on while registering");
    assertEquals(CoordinatorFence.Ack.REFUSED, registration.acknowledged(coordinatorB, 2).outcome());
    assertEquals(CoordinatorFence.Ack.REFUSED, registration.acknowledged(coordinatorB, 3).outcome(), "another at its term");
    assertFalse(registration.registered());
    assertEquals(CoordinatorFence.Ack.NEW, registration.acknowledged(coordinatorB, 4).outcome());
    assertTrue(registration.actsOn(4));
  }

  @Test
  void aRefusalAtANewerTermRegistersThroughTheProxyOnceAndAnOlderOneNot() {
    RegionRegistration registration = registration(false);
    registration.acknowledged(coordinatorA, 5);
    told.clear();
    RegisterAck ack = new RegisterAck(coordinatorB, 4);
    assertTrue(registration.refusedAt(ack, 4), "the first refusal at a term is logged");
    assertFalse(registration.refusedAt(ack, 4));
    assertEquals(List.of(), told, "an older coordinator is not looked for");
    ShardHome home = new ShardHome("1", self, 7);
    assertTrue(registration.refusedAt(home, 7));
    assertFalse(registration.refusedAt(home, 7));
    assertEquals(List.of(new Told(proxy, new Register(self, Set.of("1", "2")))), told,
        "a newer coordinator is registered with through the proxy, once");
    assertSame(coordinatorA, registration.coordinator(), "nothing changes until the newer one acknowledges");
  }

  @Test
  void homesAndHandOffsToldAheadOfTheTermAreGivenBackOnceThatTermsCoordinatorAcknowledges() {
    RegionRegistration registration = registration(false);
    registration.acknowledged(coordinatorA, 5);
    ShardHome older = new ShardHome("1", self, 4);
    ShardHome early = new ShardHome("2", self, 6);
    BeginHandOff handOff = new BeginHandOff("3", self, Set.of(self), 1, 6);
    ShardHome later = new ShardHome("4", self, 8);
    for (ShardingProtocol message : List.of(older, early, handOff, later)) {
      registration.refusedAt(message, ((message instanceof ShardHome h) ? h.term() : 6));
    }
    told.clear();

    assertEquals(List.of(early, handOff), registration.acknowledged(coordinatorB, 6).toldAhead(),
        "what term 6 told early, in order; term 4's is not");
    assertEquals(List.of(new Told(coordinatorB, new Register(self, Set.of("1", "2")))), told);
    assertTrue(registration.actsOn(6));

    told.clear();
    assertEquals(List.of(), registration.acknowledged(coordinatorA, 9).toldAhead(),
        "a term no coordinator acknowledged at (8) is never acted on");
    assertEquals(List.of(new Told(coordinatorA, new Register(self, Set.of("1", "2")))), told);
  }

  @Test
  void theStatusTheHealthChecksReadFollowsWhatTheFenceAccepts() {
    RegionRegistration registration = registration(false);
    assertEquals(Optional.empty(), status.snapshot().registered(), "registering at first");
    registration.acknowledged(coordinatorA, 3);
    assertEquals(Optional.of(new RegionStatus.Registered(coordinatorA.path().toString(), 3)),
        status.snapshot().registered());
    registration.acknowledged(coordinatorB, 2);
    registration.acknowledged(coordinatorB, 3);
    assertEquals(Optional.of(new RegionStatus.Registered(coordinatorA.path().toString(), 3)),
        status.snapshot().registered(), "refused acknowledgements change nothing");
    registration.acknowledged(coordinatorA, 4);
    assertEquals(Optional.of(new RegionStatus.Registered(coordinatorA.path().toString(), 4)),
        status.snapshot().registered(), "a restarted coordinator's new term");
    registration.terminated(coordinatorB);
    assertTrue(status.snapshot().registered().isPresent(), "another coordinator's termination changes nothing");
    registration.terminated(coordinatorA);
    assertEquals(Optional.empty(), status.snapshot().registered(), "registering again once its coordinator is gone");
    registration.acknowledged(coordinatorB, 5);
    assertEquals(Optional.of(new RegionStatus.Registered(coordinatorB.path().toString(), 5)),
        status.snapshot().registered());
  }

  @Test
  void coordinatorsThatSendNoTermAreTakenWhoeverTheyAre() {
    RegionRegistration registration = registration(false);
    registration.acknowledged(coordinatorA, RegisterAck.NO_TERM);
    registration.terminated(coordinatorA);
    assertEquals(CoordinatorFence.Ack.NEW, registration.acknowledged(coordinatorB, RegisterAck.NO_TERM).outcome());
    assertTrue(registration.actsOn(RegisterAck.NO_TERM));
  }

  @Test
  void homesAreAskedForOnlyWhileRegistered() {
    RegionRegistration registration = registration(false);
    registration.askHome("7");
    assertEquals(List.of(), told);
    registration.acknowledged(coordinatorA, 1);
    told.clear();
    registration.askHome("7");
    assertEquals(List.of(new Told(coordinatorA, new GetShardHome("7", self))), told);
  }

  @Test
  void onlyItsOwnCoordinatorsTerminationSendsItBackToTheProxy() {
    RegionRegistration registration = registration(false);
    registration.acknowledged(coordinatorA, 1);
    told.clear();
    assertFalse(registration.terminated(coordinatorB));
    assertTrue(registration.registered());
    assertEquals(List.of(), told);

    assertTrue(registration.terminated(coordinatorA));
    assertFalse(registration.registered());
    assertNull(registration.coordinator());
    assertEquals(List.of(new Told(proxy, new Register(self, Set.of("1", "2")))), told);
    told.clear();
    registration.askHome("7");
    assertEquals(List.of(), told, "no homes are asked for while registering again");
  }

  @Test
  void handOffRequestsGoToTheCoordinatorOrWhileRegisteringToTheProxy() {
    RegionRegistration registration = registration(false);
    registration.askToHandOffAll();
    registration.shardStopped("3", 5);
    assertEquals(List.of(new Told(proxy, new GracefulShutdownReq(self)),
        new Told(proxy, new ShardStopped("3", self, 5))), told);
    registration.acknowledged(coordinatorB, 1);
    told.clear();
    registration.askToHandOffAll();
    registration.shardStopped("4", 6);
    assertEquals(List.of(new Told(coordinatorB, new GracefulShutdownReq(self)),
        new Told(coordinatorB, new ShardStopped("4", self, 6))), told);
  }

  @Test
  void aRetryWhileRegisteringRegistersAgainAndAsksForNoHomes() {
    RegionRegistration registration = registration(false);
    registration.askToHandOffAll();
    told.clear();
    registration.retry(() -> {
      throw new AssertionError("the homes awaited are not even looked at while registering");
    });
    assertEquals(List.of(new Told(proxy, new Register(self, Set.of("1", "2")))), told);
  }

  @Test
  void aRetryWhileRegisteredAsksForTheAwaitedHomesAndOnceLeavingForTheHandOffAgain() {
    RegionRegistration registration = registration(false);
    registration.acknowledged(coordinatorA, 1);
    registration.acknowledged(coordinatorA, 1);
    told.clear();
    registration.retry(() -> List.of("7"));
    assertEquals(List.of(new Told(coordinatorA, new GetShardHome("7", self))), told);

    registration.askToHandOffAll();
    told.clear();
    registration.retry(List::of);
    registration.retry(() -> List.of("8"));
    assertEquals(List.of(new Told(coordinatorA, new GracefulShutdownReq(self)),
        new Told(coordinatorA, new GetShardHome("8", self)), new Told(coordinatorA, new GracefulShutdownReq(self))),
        told);
  }
}
