package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.testsupport.Ledger;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testsupport.TestCertificateAuthority;
import dev.shardkit.sharding.testkit.TestCluster;
import dev.shardkit.sharding.testsupport.Traffic;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ActorSelection;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Artery over TLS with mutual authentication, as {@code docs/security.md} configures it: every
 * node has its own key and certificate from one CA (made by the test, see
 * {@link TestCertificateAuthority}), trusts only that CA, and checks the peer's host name.
 * A cluster on it routes and rebalances like one on plain TCP, and a node whose certificate that
 * CA did not issue can neither join it nor get a message to an entity.
 */
class MutualTlsTest {
  static final EntityTypeKey<Ledger.Command> KEY = EntityTypeKey.create(Ledger.Command.class, "Secured");
  static final int SHARDS = 12;

  @TempDir
  static Path dir;
  static TestCertificateAuthority clusterCa;
  static Path trustStore;
  // Made per run, like the keys: nothing secret is checked in.
  static final String PASSWORD = UUID.randomUUID().toString();

  final Ledger ledger = new Ledger();
  TestCluster cluster;
  ActorSystem<Void> outsider;

  @BeforeAll
  static void makeCertificates() throws Exception {
    clusterCa = TestCertificateAuthority.create("shardkit test cluster CA");
    trustStore = clusterCa.writeTrustStore(dir.resolve("truststore.p12"), PASSWORD);
  }

  @AfterEach
  void stop() {
    if (outsider != null) {
      outsider.terminate();
      try {
        outsider.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        // The cluster's own shutdown below matters more than the outsider's.
      }
    }
    cluster.close();
  }

  /** Artery on TLS 1.3 with mutual authentication and host name verification, from these stores. */
  static String tls(Path keyStore, Path trustStore) {
    return """
        pekko.remote.artery {
          transport = tls-tcp
          ssl.config-ssl-engine {
            key-store = "%s"
            key-store-password = "%s"
            key-password = "%s"
            trust-store = "%s"
            trust-store-password = "%s"
            require-mutual-authentication = on
            hostname-verification = on
          }
        }
        """.formatted(keyStore, PASSWORD, PASSWORD, trustStore, PASSWORD);
  }

  /** Starts a member whose certificate the cluster's CA issued, and waits until all see it Up. */
  ActorSystem<Void> addTrusted(String nodeName) throws Exception {
    Path keyStore = clusterCa.writeKeyStore(dir.resolve(nodeName + ".p12"), PASSWORD, nodeName);
    ActorSystem<Void> node = cluster.add(tls(keyStore, trustStore));
    cluster.awaitUp(cluster.systems().size());
    ClusterSharding.get(node).start(Entity.of(KEY, ledger::entity)
        .withSettings(ShardingSettings.create(node).withNumberOfShards(SHARDS)));
    return node;
  }

  static ClusterShardingStats stats(ActorSystem<?> system) {
    return RebalanceTest.stats(system, KEY);
  }

  static boolean spread(ClusterShardingStats stats, int regions) {
    return RebalanceTest.evenlySpread(stats, regions, SHARDS);
  }

  @Test
  void aClusterOnMutualTlsRoutesAndRebalancesUnderTrafficLosingNothing() throws Exception {
    cluster = new TestCluster("Tls");
    for (int i = 0; i < 3; i++) {
      addTrusted("node-" + i);
    }
    List<String> entities = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      entities.add("t-" + i);
    }
    Traffic traffic = new Traffic(Ledger.senders("node-", cluster, 0, 3), KEY, entities, Duration.ofMillis(300));
    TestCluster.await(Duration.ofSeconds(30), () -> spread(stats(cluster.system(0)), 3),
        "the shards spread over three regions");

    // A fourth member takes its share of the shards while the three keep sending, then leaves
    // gracefully and hands them back.
    ActorSystem<Void> fourth = addTrusted("node-3");
    Address fourthAddress = Cluster.get(fourth).selfMember().address();
    TestCluster.await(Duration.ofSeconds(30), () -> spread(stats(cluster.system(0)), 4),
        "the shards spread over four regions");
    // A shard moved to the fourth node starts no entity until a message for one arrives: leave
    // only once one has, or the hand-back could move nothing but empty shards.
    TestCluster.await(Duration.ofSeconds(30), () -> stats(cluster.system(0)).regions()
        .getOrDefault(fourthAddress, Map.of()).values().stream().anyMatch(n -> n > 0),
        "an entity running on the fourth node");
    cluster.leave(fourth);
    TestCluster.await(Duration.ofSeconds(30), () -> spread(stats(cluster.system(0)), 3),
        "the shards spread over three regions again");
    // Two more rounds reach every entity in its shard's home after the hand-back.
    traffic.awaitRoundsAfter(traffic.roundsSoFar(), 2, Duration.ofSeconds(30));
    Map<String, Integer> sent = traffic.stop();

    Ledger.Report report = ledger.awaitAndCheck(entities, sent, Duration.ofSeconds(30));
    assertTrue(report.clean(), "ledger: " + report);
    assertTrue(sent.values().stream().allMatch(n -> n > 0), "every node sent: " + sent);
    assertTrue(entities.stream().anyMatch(id -> ledger.incarnations(id) > 2),
        "some entities moved to the fourth node and back under traffic");
  }

  /**
   * The outsider trusts the cluster's CA, so it would accept the cluster's certificates: only the
   * cluster's demand for a client certificate its CA issued (mutual authentication) keeps it out.
   * It asks to join and keeps telling the region on node 0 a {@code ShardingEnvelope}, the way
   * any node's region forwards a message, for the whole window; a member tells the same region
   * the same way meanwhile, and its message arrives.
   *
   * <p>The log is asserted as well because a stock Pekko node is kept out even without mutual
   * authentication: the cluster's own connections back to it fail on its untrusted certificate, so
   * it never gets the handshake's answer and never sends. A hand-written client need not wait
   * for that answer, so the test checks that the cluster refused the outsider's certificate.
   *
   * <p>Why a short window suffices: a message can only reach node 0 over an association, and the
   * outsider never gets one, since every TLS handshake it starts is refused (the test waits until
   * that has been logged). The window only has to cover several of its attempts, each of which
   * would deliver at once if it got through, as the member's message shows.
   */
  @Test
  void aNodeWhoseCertificateTheClusterCaDidNotIssueCanNeitherJoinNorDeliver() throws Exception {
    cluster = new TestCluster("Tls");
    addTrusted("node-0");
    addTrusted("node-1");
    Address seed = cluster.address(0);
    String region = seed + "/system/shardkit-region-" + KEY.name();
    String entity = "target";
    ClusterSharding.get(cluster.system(1)).entityRefFor(KEY, entity).tell(new Ledger.Msg("member", 1));
    TestCluster.await(Duration.ofSeconds(30), () -> ledger.received(entity, "member") == 1,
        "the entity started on a member's message");

    try (LogCapture logs = new LogCapture()) {
      Path ownKeyStore = TestCertificateAuthority.create("another CA")
          .writeKeyStore(dir.resolve("outsider.p12"), PASSWORD, "outsider");
      outsider = ActorSystem.create(Behaviors.empty(), "Tls",
          ConfigFactory.parseString(tls(ownKeyStore, trustStore))
              .withFallback(ConfigFactory.parseString(TestCluster.BASE_CONFIG))
              .withFallback(ConfigFactory.load()));
      Address outsiderAddress = Cluster.get(outsider).selfMember().address();
      Cluster.get(outsider).manager().tell(new Join(seed));
      ActorSelection fromOutsider = Adapter.toClassic(outsider).actorSelection(region);
      ActorSelection fromMember = Adapter.toClassic(cluster.system(1)).actorSelection(region);

      long windowEnd = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      int told = 0;
      boolean memberTold = false;
      while (System.nanoTime() < windowEnd) {
        fromOutsider.tell(new ShardingEnvelope<>(entity, new Ledger.Msg("outsider", ++told)),
            org.apache.pekko.actor.ActorRef.noSender());
        if (!memberTold) {
          fromMember.tell(new ShardingEnvelope<>(entity, new Ledger.Msg("member", 2)),
              org.apache.pekko.actor.ActorRef.noSender());
          memberTold = true;
        }
        for (ActorSystem<Void> member : cluster.systems()) {
          for (Member m : Cluster.get(member).state().getMembers()) {
            assertFalse(m.address().equals(outsiderAddress), member + " lists the outsider: " + m);
          }
        }
        assertNotEquals(MemberStatus.up(), Cluster.get(outsider).selfMember().status(), "the outsider is Up");
        Thread.sleep(100);
      }
      // The outsider's side logs the refusal: node 0 answered its certificate with a fatal alert.
      logs.await(Duration.ofSeconds(10), "outbound connection to [" + seed + "]", "SSLHandshakeException",
          "bad_certificate");

      TestCluster.await(Duration.ofSeconds(30), () -> ledger.received(entity, "member") == 2,
          "the member's message through the same path arrived");
      assertEquals(0, ledger.received(entity, "outsider"),
          "none of the outsider's " + told + " messages reached the entity");
      for (ActorSystem<Void> member : cluster.systems()) {
        int count = 0;
        for (Member m : Cluster.get(member).state().getMembers()) {
          count++;
        }
        assertEquals(2, count, member + " sees exactly the two members");
      }
    }
  }
}
