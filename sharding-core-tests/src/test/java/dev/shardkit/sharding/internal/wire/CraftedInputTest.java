package dev.shardkit.sharding.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.MessageExtractor;
import dev.shardkit.sharding.ShardingEnvelope;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardRefused;
import dev.shardkit.sharding.testsupport.Ledger;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testsupport.SerializerFuzz;
import dev.shardkit.sharding.testsupport.SerializerFuzz.Golden;
import dev.shardkit.sharding.testsupport.SerializerFuzz.Report;
import dev.shardkit.sharding.testkit.TestCluster;
import dev.shardkit.sharding.testsupport.Traffic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A live three-node cluster (every message serialized) that is fed crafted protocol messages,
 * which pass serialization but carry ids the type does not accept (sent to a region's entrance on
 * its own node and from another node), and garbage bytes through the running systems'
 * serializers, keeps routing: a ledger finds every message of steady traffic to
 * good entities delivered exactly once and in order, while the bad input is dropped and counted.
 */
class CraftedInputTest {
  static final EntityTypeKey<Ledger.Command> GUARDED = EntityTypeKey.create(Ledger.Command.class, "Guarded");
  static final EntityTypeKey<Ledger.Command> CAPPED = EntityTypeKey.create(Ledger.Command.class, "Capped");
  static final int SHARDS = 20;
  static final int MAX_SHARDS = 3;

  /** Shard id = what comes before the entity id's dash: "a-1" lives in shard "a". */
  static final class PrefixExtractor implements MessageExtractor<ShardingEnvelope<Ledger.Command>, Ledger.Command> {
    @Override
    public String entityId(ShardingEnvelope<Ledger.Command> envelope) {
      return envelope.entityId();
    }

    @Override
    public String shardId(String entityId) {
      return entityId.substring(0, entityId.indexOf('-'));
    }

    @Override
    public Ledger.Command unwrapMessage(ShardingEnvelope<Ledger.Command> envelope) {
      return envelope.message();
    }
  }

  static final Ledger ledger = new Ledger();
  static TestCluster cluster;
  /** Each node's region of the guarded type. */
  static final List<ActorRef<Object>> regions = new ArrayList<>();

  @BeforeAll
  static void start() {
    cluster = new TestCluster("CraftedInput").startNodes(3);
    for (ActorSystem<Void> s : cluster.systems()) {
      ShardingSettings settings = ShardingSettings.create(s);
      regions.add(ClusterSharding.get(s).start(Entity.of(GUARDED, ledger::entity)
          .withSettings(settings.withNumberOfShards(SHARDS))).unsafeUpcast());
      ClusterSharding.get(s).start(Entity.of(CAPPED, ledger::entity).withMessageExtractor(new PrefixExtractor())
          .withSettings(settings.withMaxShards(MAX_SHARDS)));
    }
    cluster.awaitUp(3);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static long dropped(ActorSystem<?> system, EntityTypeKey<?> key) {
    try {
      return ClusterSharding.get(system).shardRegionState(key).toCompletableFuture().get(10, TimeUnit.SECONDS)
          .droppedMessages();
    } catch (Exception e) {
      return -1;
    }
  }

  static void tellCoordinator(ActorSystem<?> system, String typeName, Object message) {
    Adapter.toClassic(system).actorSelection("/system/shardkit-coordinator-proxy-" + typeName)
        .tell(message, org.apache.pekko.actor.ActorRef.noSender());
  }

  @Test
  void craftedMessagesAndGarbageBytesCostOnlyThemselvesWhileGoodTrafficArrivesOnceInOrder() throws Exception {
    List<String> good = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      good.add("good-" + i);
    }
    Traffic traffic = new Traffic(Map.of("n0", cluster.system(0), "n1", cluster.system(1), "n2", cluster.system(2)),
        GUARDED, good, Duration.ofMillis(20));
    ActorSystem<Void> node0 = cluster.system(0);
    ActorRef<Object> region0 = regions.get(0);
    TestCluster.await(Duration.ofSeconds(20), () -> ledger.received("good-0", "n0") > 0, "traffic flows");
    long droppedBefore = dropped(node0, GUARDED);

    // Crafted messages a region accepts from the wire: shard ids outside 0..19, and an envelope
    // whose entity id is empty.
    for (String shardId : List.of("20", "-1", "01", "999999999999")) {
      region0.tell(new Deliver(GUARDED.name(), shardId, "crafted-" + shardId, new Ledger.Msg("crafted", 1)));
    }
    region0.tell(new ShardingEnvelope<>("", new Ledger.Msg("crafted", 1)));
    TestCluster.await(Duration.ofSeconds(10), () -> dropped(node0, GUARDED) == droppedBefore + 5,
        "the region drops and counts the five crafted messages");

    // The same from another node, through the wire: the ref start returned (the region's entrance)
    // resolved on node 1. What arrives there is routed on the thread that takes it off the wire,
    // not through the region's mailbox, so this checks that path keeps the same guard.
    ActorRef<Object> region0FromNode1 = ActorRefResolver.get(cluster.system(1))
        .resolveActorRef(ActorRefResolver.get(node0).toSerializationFormat(region0));
    for (String shardId : List.of("20", "-1", "01", "999999999999")) {
      region0FromNode1.tell(new Deliver(GUARDED.name(), shardId, "remote-crafted-" + shardId,
          new Ledger.Msg("crafted", 1)));
    }
    region0FromNode1.tell(new ShardingEnvelope<>("", new Ledger.Msg("crafted", 1)));
    TestCluster.await(Duration.ofSeconds(10), () -> dropped(node0, GUARDED) == droppedBefore + 10,
        "node 0's region drops and counts the five crafted messages that came over the wire");

    // A crafted request to the coordinator for a shard outside the known ids is refused.
    TestProbe<Object> asker = TestProbe.create(cluster.system(1));
    tellCoordinator(cluster.system(1), GUARDED.name(), new GetShardHome("4711", asker.ref()));
    ShardRefused refused = asker.expectMessageClass(ShardRefused.class, Duration.ofSeconds(10));
    assertTrue(refused.shardId().equals("4711") && refused.reason().contains("[Guarded]")
        && refused.reason().contains("0 to 19"), refused.toString());

    // Garbage through each running system's serializers, as remoting would hand it over.
    for (int i = 0; i < 3; i++) {
      ActorSystem<Void> system = cluster.system(i);
      ActorRef<Object> region = regions.get(i);
      List<Object> samples = List.of(new Deliver(GUARDED.name(), "3", "good-3", new Ledger.Msg("n9", 1)),
          new ShardingProtocol.ShardHome("3", region, 1), new GetShardHome("3", region),
          new ShardingProtocol.Register(region, Set.of("3", "4")), new ShardingProtocol.BeginHandOff("3", region,
              Set.of(region), 1, 1), new ShardingProtocol.BeginHandOff("4", region, Set.of(region), 2, 1, true),
          new ShardingProtocol.HandOffDeclined("4", region, 2));
      List<Golden> goldens = new ArrayList<>();
      SerializerWithStringManifest serializer = null;
      for (Object sample : samples) {
        serializer = (SerializerWithStringManifest) SerializationExtension.get(Adapter.toClassic(system))
            .findSerializerFor(sample);
        goldens.add(new Golden(serializer.manifest(sample), serializer.toBinary(sample)));
      }
      Report report = SerializerFuzz.run(serializer, goldens, goldens.stream().map(Golden::manifest).toList(),
          ProtocolFields::problem, SerializerFuzz.seed("CraftedInputTest node " + i), 5_000);
      assertTrue(report.failures().isEmpty(), report.failures().toString());
    }

    // Traffic goes on past everything crafted above (a slow machine sends fewer rounds meanwhile),
    // so the good messages checked below include some sent after it.
    Map<String, Integer> sentWhenCraftedDone = traffic.roundsSoFar();
    TestCluster.await(Duration.ofSeconds(20), () -> traffic.roundsSoFar().entrySet().stream()
        .allMatch(e -> e.getValue() >= sentWhenCraftedDone.get(e.getKey()) + 5),
        "traffic goes on after the crafted input");
    Map<String, Integer> sent = traffic.stop();
    Ledger.Report report = ledger.awaitAndCheck(good, sent, Duration.ofSeconds(20));
    assertTrue(report.clean(), "every good message arrives once, in order: " + report);
    assertEquals(droppedBefore + 10, dropped(node0, GUARDED), "only the crafted messages were dropped");
    assertEquals(0, ledger.received("crafted-20", "crafted"));
    assertEquals(0, ledger.received("remote-crafted-20", "crafted"));
  }

  @Test
  void beyondMaxShardsANewShardIsRefusedWithAWarningAndItsMessagesAreDroppedAndCounted() throws Exception {
    ActorSystem<Void> node1 = cluster.system(1);
    ClusterSharding sharding = ClusterSharding.get(node1);
    for (String id : List.of("a-1", "b-1", "c-1")) {
      sharding.entityRefFor(CAPPED, id).tell(new Ledger.Msg("s", 1));
    }
    for (String id : List.of("a-1", "b-1", "c-1")) {
      TestCluster.await(Duration.ofSeconds(15), () -> ledger.received(id, "s") == 1, id + " got its message");
    }
    long droppedBefore = dropped(node1, CAPPED);
    try (LogCapture logs = new LogCapture()) {
      for (int i = 1; i <= 4; i++) {
        sharding.entityRefFor(CAPPED, "d-" + i).tell(new Ledger.Msg("s", 1));
      }
      logs.await(Duration.ofSeconds(10), "[Capped]", "shardkit.sharding.max-shards = " + MAX_SHARDS, "[d]");
      TestCluster.await(Duration.ofSeconds(10), () -> dropped(node1, CAPPED) == droppedBefore + 4,
          "the region drops and counts the refused shard's four messages");
    }
    // The shards within the cap keep serving.
    sharding.entityRefFor(CAPPED, "a-2").tell(new Ledger.Msg("s", 1));
    TestCluster.await(Duration.ofSeconds(10), () -> ledger.received("a-2", "s") == 1, "a-2 got its message");
    assertEquals(0, ledger.received("d-1", "s"));
  }
}
