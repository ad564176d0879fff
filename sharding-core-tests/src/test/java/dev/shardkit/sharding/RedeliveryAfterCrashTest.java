package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.Ledger;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testsupport.Network;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;

/**
 * What a region does with the messages its link to a crashed node had not delivered. The sender's
 * node stops hearing the victim (a blackhole, so the batches it sends are never received), sends
 * to entities on the victim, and the victim crashes and is downed. Two entity types, identical
 * but for {@code remote-delivery.redeliver-unacknowledged-after-crash}:
 *
 * <ul>
 *   <li>on: every message reaches the entity's next incarnation, once and in order;
 *   <li>off: exactly the messages the region reports as unacknowledged are lost; everything that
 *       was still waiting in the link reaches the next incarnation.
 * </ul>
 */
class RedeliveryAfterCrashTest {
  static final int SHARDS = 30;
  static final EntityTypeKey<Ledger.Command> ON = EntityTypeKey.create(Ledger.Command.class, "RedeliverOn");
  static final EntityTypeKey<Ledger.Command> OFF = EntityTypeKey.create(Ledger.Command.class, "RedeliverOff");
  static final Pattern UNACKNOWLEDGED = Pattern.compile("without acknowledging (\\d+) message");

  final Ledger ledgerOn = new Ledger();
  final Ledger ledgerOff = new Ledger();

  @Test
  void unacknowledgedMessagesGoToTheNextHomeOnlyWhenAskedToAndUnsentOnesAlways() throws Exception {
    // Batches of at most 10 messages: the 20 rounds to 10-40 entities need 20-80 batches, more
    // than the link's window of 8 unacknowledged ones, so however the rounds are packed (with the
    // default of 1 000 a batch can take them all when the sender runs ahead of the link), some
    // messages are still waiting in the link when the victim is gone. The default size is what
    // every other cluster test runs with.
    String common = Network.TEST_MODE + "shardkit.sharding.remote-delivery.batch-max-messages = 10\n";
    String victimConfig = common + "pekko.coordinated-shutdown.run-by-actor-system-terminate = off";
    try (LogCapture logs = new LogCapture(); TestCluster cluster = new TestCluster("Redeliver")) {
      for (int i = 0; i < 3; i++) {
        cluster.add(i == 2 ? victimConfig : common);
        cluster.awaitUp(i + 1);
      }
      for (ActorSystem<Void> s : cluster.systems()) {
        ShardingSettings settings = ShardingSettings.create(s).withNumberOfShards(SHARDS);
        ClusterSharding.get(s).start(Entity.of(ON, ledgerOn::entity).withSettings(settings.withRemoteDelivery(
            settings.remoteDelivery().withRedeliverUnacknowledgedAfterCrash(true))));
        ClusterSharding.get(s).start(Entity.of(OFF, ledgerOff::entity).withSettings(settings));
      }
      ActorSystem<Void> sender = cluster.system(1);
      ActorSystem<Void> victim = cluster.system(2);
      List<String> onVictimOn = entitiesOn(victim, sender, ON, ledgerOn);
      List<String> onVictimOff = entitiesOn(victim, sender, OFF, ledgerOff);

      // From here on the sender's batches to the victim vanish, and the victim crashes.
      Network.cut(sender, cluster.address(2));
      int rounds = 20;
      for (int seq = 2; seq <= rounds + 1; seq++) {
        for (String id : onVictimOn) {
          ClusterSharding.get(sender).entityRefFor(ON, id).tell(new Ledger.Msg("sender", seq));
        }
        for (String id : onVictimOff) {
          ClusterSharding.get(sender).entityRefFor(OFF, id).tell(new Ledger.Msg("sender", seq));
        }
      }
      victim.terminate();
      victim.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);

      Map<String, Integer> sent = Map.of("sender", rounds + 1);
      Ledger.Report on = ledgerOn.awaitAndCheck(onVictimOn, sent, Duration.ofSeconds(60));
      System.out.println("RedeliveryAfterCrashTest [on]: " + on);
      assertTrue(on.clean(), "with redelivery every message reaches the next incarnation once, in order: " + on);

      int unacknowledged = logs.matching("Entity type [" + OFF.name() + "]", "without acknowledging").stream()
          .mapToInt(e -> {
            Matcher m = UNACKNOWLEDGED.matcher(e.getFormattedMessage());
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
          }).sum();
      Ledger.Report off = ledgerOff.awaitAndCheck(onVictimOff, sent, Duration.ofSeconds(5));
      System.out.println("RedeliveryAfterCrashTest [off]: " + off + ", reported unacknowledged: " + unacknowledged);
      assertTrue(unacknowledged > 0, "batches were sent into the blackhole and never acknowledged");
      assertEquals(unacknowledged, off.lost(), "without redelivery exactly the unacknowledged messages are lost");
      assertTrue(off.lost() < (long) rounds * onVictimOff.size(), "what never left the sender's node reached the "
          + "next incarnations: lost " + off.lost() + " of " + rounds * onVictimOff.size());
      assertEquals(0, off.duplicated());
      assertTrue(off.doubleIncarnations().isEmpty(), "no entity alive twice: " + off.doubleIncarnations());
    }
  }

  /**
   * Up to 40 entities whose shards the victim hosts, each having had message 1 from the sender
   * (so every region on the way knows the victim as their home).
   */
  static List<String> entitiesOn(ActorSystem<?> victim, ActorSystem<?> sender, EntityTypeKey<Ledger.Command> key,
      Ledger ledger) throws Exception {
    // The coordinator places shards only on regions it knows; a region that starts after the
    // coordinator asked its node would be left without shards, and the test without a victim.
    TestCluster.await(Duration.ofSeconds(30), () -> ClusterSharding.get(sender).clusterShardingStats(key,
        Duration.ofSeconds(3)).toCompletableFuture().join().regions().size() == 3, "the coordinator knows 3 regions");
    List<String> all = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      all.add(key.name() + "-" + i);
    }
    for (String id : all) {
      ClusterSharding.get(sender).entityRefFor(key, id).tell(new Ledger.Msg("sender", 1));
    }
    assertTrue(ledger.awaitAndCheck(all, Map.of("sender", 1), Duration.ofSeconds(30)).clean(), "warm-up delivered");
    Set<String> victimShards = ClusterSharding.get(victim).shardRegionState(key).toCompletableFuture()
        .get(10, TimeUnit.SECONDS).shards().stream().map(ShardRegionState.ShardState::shardId)
        .collect(Collectors.toSet());
    List<String> chosen = all.stream()
        .filter(id -> victimShards.contains(StableHashMessageExtractor.shardIdFor(id, SHARDS))).limit(40).toList();
    assertTrue(chosen.size() >= 10, "the victim hosts entities of " + key.name() + ": " + chosen.size());
    return chosen;
  }
}
