package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testsupport.Recorder.Msg;
import dev.shardkit.sharding.testsupport.Recorder.Report;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad input gets a clear answer and nothing else is lost: every case here checks the error and
 * then that other entities are still served.
 */
class BadInputTest {
  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "Checked");
  static final EntityTypeKey<Command> FRAGILE = EntityTypeKey.create(Command.class, "Fragile");
  static final Duration ASK = Duration.ofSeconds(10);

  /** Throws for entity ids starting with "boom", like a buggy user extractor. */
  static final class FragileExtractor implements MessageExtractor<ShardingEnvelope<Command>, Command> {
    @Override
    public String entityId(ShardingEnvelope<Command> envelope) {
      if (envelope.entityId().startsWith("boom")) {
        throw new IllegalStateException("cannot parse " + envelope.entityId());
      }
      return envelope.entityId();
    }

    @Override
    public String shardId(String entityId) {
      if (entityId.startsWith("boom")) {
        throw new IllegalStateException("no shard for " + entityId);
      }
      return StableHashMessageExtractor.shardIdFor(entityId, 50);
    }

    @Override
    public Command unwrapMessage(ShardingEnvelope<Command> envelope) {
      return envelope.message();
    }
  }

  static TestCluster cluster;
  static ActorRef<ShardingEnvelope<Command>> region0;
  static ActorRef<ShardingEnvelope<Command>> fragile0;

  @BeforeAll
  static void start() {
    Recorder.reset();
    cluster = new TestCluster("BadInput").startNodes(2);
    for (ActorSystem<Void> s : cluster.systems()) {
      ActorRef<ShardingEnvelope<Command>> r = ClusterSharding.get(s).start(Entity.of(KEY, Recorder::create));
      ActorRef<ShardingEnvelope<Command>> f = ClusterSharding.get(s).start(
          Entity.of(FRAGILE, Recorder::create).withMessageExtractor(new FragileExtractor()));
      if (region0 == null) {
        region0 = r;
        fragile0 = f;
      }
    }
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static Report report(EntityTypeKey<Command> key, String id) throws Exception {
    return ClusterSharding.get(cluster.system(0)).entityRefFor(key, id)
        .<Report>ask(Recorder.Get::new, ASK).toCompletableFuture().get(15, TimeUnit.SECONDS);
  }

  /** Sends one message to each of 20 entities and checks each got it: the type still serves. */
  static void othersStillServed(EntityTypeKey<Command> key, String prefix) throws Exception {
    for (int i = 0; i < 20; i++) {
      ClusterSharding.get(cluster.system(i % 2)).entityRefFor(key, prefix + i).tell(new Msg("s", 1));
    }
    for (int i = 0; i < 20; i++) {
      String id = prefix + i;
      TestCluster.await(Duration.ofSeconds(15), () -> {
        try {
          return report(key, id).received() == 1;
        } catch (Exception e) {
          return false;
        }
      }, id + " received its message");
    }
  }

  static TestProbe<Dropped> droppedProbe(ActorSystem<?> system) {
    TestProbe<Dropped> probe = TestProbe.create(system);
    system.eventStream().tell(new EventStream.Subscribe<>(Dropped.class, probe.ref()));
    // The subscription is asynchronous; a round trip through the event stream confirms it.
    system.eventStream().tell(new EventStream.Publish<>(new Dropped("ping", "subscription check",
        org.apache.pekko.actor.ActorRef.noSender(), org.apache.pekko.actor.ActorRef.noSender())));
    probe.fishForMessage(Duration.ofSeconds(5), d -> "ping".equals(d.message())
        ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
        : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore());
    return probe;
  }

  @Test
  void nullOrEmptyEntityIdAtEntityRefForNamesTheType() {
    ClusterSharding sharding = ClusterSharding.get(cluster.system(0));
    IllegalArgumentException nullId = assertThrows(IllegalArgumentException.class,
        () -> sharding.entityRefFor(KEY, null));
    assertTrue(nullId.getMessage().contains("[Checked]") && nullId.getMessage().contains("null"), nullId.getMessage());
    IllegalArgumentException emptyId = assertThrows(IllegalArgumentException.class,
        () -> sharding.entityRefFor(KEY, ""));
    assertTrue(emptyId.getMessage().contains("[Checked]") && emptyId.getMessage().contains("empty"),
        emptyId.getMessage());
    IllegalArgumentException nullMessage = assertThrows(IllegalArgumentException.class,
        () -> sharding.entityRefFor(KEY, "x").tell(null));
    assertTrue(nullMessage.getMessage().contains("[Checked]"), nullMessage.getMessage());
  }

  @Test
  void nullEntityIdInAnEnvelopeIsDroppedWithAWarningNamingTheType() throws Exception {
    TestProbe<Dropped> dropped = droppedProbe(cluster.system(0));
    try (LogCapture logs = new LogCapture()) {
      region0.tell(new ShardingEnvelope<>(null, new Msg("s", 1)));
      region0.tell(new ShardingEnvelope<>("", new Msg("s", 1)));
      Dropped d = dropped.expectMessageClass(Dropped.class, Duration.ofSeconds(5));
      assertTrue(d.reason().contains("[Checked]") && d.reason().contains("null entity id"), d.reason());
      Dropped d2 = dropped.expectMessageClass(Dropped.class, Duration.ofSeconds(5));
      assertTrue(d2.reason().contains("empty entity id"), d2.reason());
      logs.await(Duration.ofSeconds(5), "Entity type [Checked]", "null entity id");
    }
    othersStillServed(KEY, "n-");
  }

  @Test
  void anExtractorThatThrowsCostsOnlyItsMessage() throws Exception {
    TestProbe<Dropped> dropped = droppedProbe(cluster.system(0));
    try (LogCapture logs = new LogCapture()) {
      fragile0.tell(new ShardingEnvelope<>("boom-1", new Msg("s", 1)));
      Dropped d = dropped.expectMessageClass(Dropped.class, Duration.ofSeconds(5));
      assertTrue(d.reason().contains("[Fragile]") && d.reason().contains("cannot parse boom-1"), d.reason());
      logs.await(Duration.ofSeconds(5), "Entity type [Fragile]", "extractor threw", "cannot parse boom-1");
    }
    othersStillServed(FRAGILE, "f-");
    // At entityRefFor the same failure is synchronous and names the type and id.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ClusterSharding.get(cluster.system(1)).entityRefFor(FRAGILE, "boom-2"));
    assertTrue(e.getMessage().contains("[Fragile]") && e.getMessage().contains("[boom-2]"), e.getMessage());
  }

  @Test
  void anEntityWhoseFactoryThrowsCostsOnlyItsMessagesAndTheyAreCounted() throws Exception {
    EntityTypeKey<Command> key = EntityTypeKey.create(Command.class, "FailingFactory");
    ClusterSharding sharding = ClusterSharding.get(cluster.system(0));
    // Only this node starts the type, so its region hosts every shard and counts every drop.
    sharding.start(Entity.of(key, ctx -> {
      if (ctx.entityId().startsWith("broken")) {
        throw new IllegalStateException("no behavior for " + ctx.entityId());
      }
      return Recorder.create(ctx);
    }));
    TestProbe<Dropped> dropped = droppedProbe(cluster.system(0));
    try (LogCapture logs = new LogCapture()) {
      sharding.entityRefFor(key, "broken-1").tell(new Msg("s", 1));
      Dropped d = dropped.expectMessageClass(Dropped.class, Duration.ofSeconds(10));
      assertTrue(d.reason().contains("[FailingFactory]") && d.reason().contains("entity [broken-1] could not be "
          + "created") && d.reason().contains("no behavior for broken-1"), d.reason());
      logs.await(Duration.ofSeconds(5), "Entity type [FailingFactory]", "creating entity [broken-1]", "failed");
    }
    TestCluster.await(Duration.ofSeconds(5), () -> {
      try {
        return sharding.shardRegionState(key).toCompletableFuture().get().droppedMessages() == 1;
      } catch (Exception e) {
        return false;
      }
    }, "the region counts the message its shard dropped");
    sharding.entityRefFor(key, "fine").tell(new Msg("s", 1));
    TestCluster.await(Duration.ofSeconds(10), () -> {
      try {
        return report(key, "fine").received() == 1;
      } catch (Exception e) {
        return false;
      }
    }, "the shard goes on serving");
  }

  /** An entity that lives on node 1 (so node 0 must send across the network), having had one message. */
  static String entityOnNode1(String prefix) throws Exception {
    String node1 = cluster.address(1).toString();
    for (int i = 0; i < 200; i++) {
      ClusterSharding.get(cluster.system(0)).entityRefFor(KEY, prefix + i).tell(new Msg("s", 1));
      if (report(KEY, prefix + i).host().equals(node1)) {
        return prefix + i;
      }
    }
    throw new AssertionError("no entity " + prefix + "* lives on node 1");
  }

  @Test
  void aMessageTooLargeForARemotingFrameIsReportedAndTheMessagesAroundItArrive() throws Exception {
    String remoteId = entityOnNode1("big-");
    long droppedBefore = ClusterSharding.get(cluster.system(0)).shardRegionState(KEY).toCompletableFuture()
        .get(10, TimeUnit.SECONDS).droppedMessages();
    EntityRef<Command> ref = ClusterSharding.get(cluster.system(0)).entityRefFor(KEY, remoteId);
    // Warnings are rate-limited per region, and other tests here drop messages too: look at the
    // dead letter, which carries the same reason.
    TestProbe<Dropped> dropped = droppedProbe(cluster.system(0));
    // Artery's frames hold 256 KiB by default; this one message is larger.
    ref.tell(new Msg("s", 2));
    ref.tell(new Msg("x".repeat(300_000), 1));
    ref.tell(new Msg("s", 3));
    dropped.fishForMessage(Duration.ofSeconds(10), d -> d.reason().contains("[" + remoteId + "]")
        && d.reason().contains("does not fit in one remoting frame") && d.reason().contains("maximum-frame-size")
        ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
        : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore());
    TestCluster.await(Duration.ofSeconds(10), () -> {
      try {
        Report r = report(KEY, remoteId);
        return r.received() == 3 && r.outOfOrder() == 0;
      } catch (Exception e) {
        return false;
      }
    }, remoteId + " got the messages before and after the large one, in order");
    assertEquals(droppedBefore + 1, ClusterSharding.get(cluster.system(0)).shardRegionState(KEY).toCompletableFuture()
        .get(10, TimeUnit.SECONDS).droppedMessages(), "the large message is counted as dropped");
  }

  @Test
  void anUnserializableMessageForARemoteEntityIsReportedClearly() throws Exception {
    String remoteId = entityOnNode1("u-");
    try (LogCapture logs = new LogCapture()) {
      ClusterSharding.get(cluster.system(0)).entityRefFor(KEY, remoteId)
          .tell(new Recorder.Unserializable("not for the wire"));
      logs.await(Duration.ofSeconds(10), Recorder.Unserializable.class.getName(), "[Checked]", "[" + remoteId + "]");
      // Through the region ActorRef as well.
      region0.tell(new ShardingEnvelope<>(remoteId, new Recorder.Unserializable("again")));
      TestCluster.await(Duration.ofSeconds(10), () -> logs.events().stream()
          .filter(e -> LogCapture.fullText(e).contains(Recorder.Unserializable.class.getName())).count() >= 2,
          "the second unserializable message is reported too");
    }
    // The entity itself and the others are unharmed; the bad messages never arrived.
    ClusterSharding.get(cluster.system(0)).entityRefFor(KEY, remoteId).tell(new Msg("s", 2));
    String id = remoteId;
    TestCluster.await(Duration.ofSeconds(10), () -> {
      try {
        return report(KEY, id).received() == 2;
      } catch (Exception e) {
        return false;
      }
    }, remoteId + " got its next message");
    othersStillServed(KEY, "v-");
  }

  @Test
  void startIsIdempotentAndRejectsAnotherMessageClass() {
    ClusterSharding sharding = ClusterSharding.get(cluster.system(0));
    ActorRef<ShardingEnvelope<Command>> again = sharding.start(Entity.of(KEY, Recorder::create));
    assertSame(region0, again, "a second start returns the same region");
    EntityTypeKey<String> clash = EntityTypeKey.create(String.class, "Checked");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> sharding.start(Entity.of(clash, ctx -> org.apache.pekko.actor.typed.javadsl.Behaviors.empty())));
    assertTrue(e.getMessage().contains("[Checked]") && e.getMessage().contains(Command.class.getName())
        && e.getMessage().contains("java.lang.String"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> sharding.entityRefFor(clash, "x"));
  }

  @Test
  void anEntityTypeThatWasNeverStartedIsAClearError() {
    EntityTypeKey<Command> unknown = EntityTypeKey.create(Command.class, "NeverStarted");
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> ClusterSharding.get(cluster.system(1)).entityRefFor(unknown, "x"));
    assertTrue(e.getMessage().contains("[NeverStarted]") && e.getMessage().contains("start"), e.getMessage());
    assertThrows(IllegalStateException.class,
        () -> ClusterSharding.get(cluster.system(1)).shardRegionState(unknown));
  }

  @Test
  void aDeliveryForAnotherTypeIsRefused() throws Exception {
    TestProbe<Dropped> dropped = droppedProbe(cluster.system(0));
    // A message addressed to type "Fragile" that reaches the "Checked" region: the region refuses it.
    ActorRef<Object> checkedRegion = region0.unsafeUpcast();
    checkedRegion.tell(new dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver("Fragile", "1", "x",
        new Msg("s", 1)));
    Dropped d = dropped.expectMessageClass(Dropped.class, Duration.ofSeconds(5));
    assertTrue(d.reason().contains("[Checked]") && d.reason().contains("[Fragile]"), d.reason());
    assertNotEquals(null, d.message());
    othersStillServed(KEY, "w-");
  }

  @Test
  void aDeliveryForAShardOutsideTheKnownIdsIsDroppedCountedAndNamed() throws Exception {
    long before = ClusterSharding.get(cluster.system(0)).shardRegionState(KEY).toCompletableFuture()
        .get(10, TimeUnit.SECONDS).droppedMessages();
    TestProbe<Dropped> dropped = droppedProbe(cluster.system(0));
    // The default extractor spreads ids over 1000 shards, "0" to "999": no other id is placed.
    ActorRef<Object> checkedRegion = region0.unsafeUpcast();
    checkedRegion.tell(new dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver("Checked", "1000", "x",
        new Msg("s", 1)));
    Dropped d = dropped.expectMessageClass(Dropped.class, Duration.ofSeconds(5));
    assertTrue(d.reason().contains("[Checked]") && d.reason().contains("[1000]") && d.reason().contains("0 to 999")
        && d.reason().contains("entity [x]"), d.reason());
    assertEquals(before + 1, ClusterSharding.get(cluster.system(0)).shardRegionState(KEY).toCompletableFuture()
        .get(10, TimeUnit.SECONDS).droppedMessages());
    othersStillServed(KEY, "o-");
  }

  @Test
  void statsListRegionsThatDoNotAnswerInTime() throws Exception {
    // An entity whose creation blocks its shard until the test has its stats: the region hosting
    // it cannot answer a one-second stats request, the other region can.
    EntityTypeKey<Command> sluggish = EntityTypeKey.create(Command.class, "Sluggish");
    CountDownLatch blocking = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    for (ActorSystem<Void> s : cluster.systems()) {
      ClusterSharding.get(s).start(Entity.of(sluggish, ctx -> {
        if (ctx.entityId().equals("slow")) {
          blocking.countDown();
          try {
            release.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        return Recorder.create(ctx);
      }));
    }
    for (int i = 0; i < 40; i++) {
      ClusterSharding.get(cluster.system(0)).entityRefFor(sluggish, "quick-" + i)
          .<Report>ask(Recorder.Get::new, ASK).toCompletableFuture().get(15, TimeUnit.SECONDS);
    }
    ClusterSharding sharding = ClusterSharding.get(cluster.system(0));
    TestCluster.await(Duration.ofSeconds(15), () -> {
      try {
        return sharding.clusterShardingStats(sluggish, ASK).toCompletableFuture().get(15, TimeUnit.SECONDS)
            .regions().size() == 2;
      } catch (Exception e) {
        return false;
      }
    }, "both regions answer while nothing blocks them");
    sharding.entityRefFor(sluggish, "slow").tell(new Msg("s", 1));
    ClusterShardingStats stats;
    try {
      assertTrue(blocking.await(15, TimeUnit.SECONDS), "the slow entity's creation began");
      stats = sharding.clusterShardingStats(sluggish, Duration.ofSeconds(1)).toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
    } finally {
      release.countDown();
    }
    assertEquals(1, stats.failedRegions().size(), "the blocked region is listed as failed: " + stats);
    assertEquals(1, stats.regions().size(), "the other region answered: " + stats);
    assertTrue(!stats.regions().containsKey(stats.failedRegions().iterator().next()));
  }

  @Test
  void entityTypeKeysRejectBadNames() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> EntityTypeKey.create(Command.class, "has space"));
    assertTrue(e.getMessage().contains("has space"));
    assertEquals("Checked", KEY.name());
  }

  @Test
  void rememberEntitiesWithoutAStoreForItsModeIsRefusedByName() {
    ClusterSharding sharding = ClusterSharding.get(cluster.system(0));
    ShardingSettings base = ShardingSettings.create(cluster.system(0));
    EntityTypeKey<Command> remembered = EntityTypeKey.create(Command.class, "Remembered");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> sharding.start(
        Entity.of(remembered, ctx -> Behaviors.empty())
            .withSettings(base.withRememberEntities(true).withRememberEntitiesStore("nosuch"))));
    assertTrue(e.getMessage().contains("remember-entities-store") && e.getMessage().contains("nosuch"),
        e.getMessage());
    // Nothing was started: the type can be started once the setting is fixed.
    sharding.start(Entity.of(remembered, ctx -> Behaviors.empty()));
  }
}
