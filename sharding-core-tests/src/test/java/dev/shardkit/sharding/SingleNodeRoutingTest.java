package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testsupport.Recorder.Msg;
import dev.shardkit.sharding.testsupport.Recorder.Report;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One node: order across the routing shortcut's path switch (a shard's home going from unknown to
 * known while a sender is mid-stream), asks, and the bounded buffer.
 */
class SingleNodeRoutingTest {
  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "Local");
  static TestCluster cluster;
  static ActorSystem<Void> system;

  @BeforeAll
  static void start() {
    Recorder.reset();
    cluster = new TestCluster("Single").startNodes(1);
    system = cluster.system(0);
    ClusterSharding.get(system).start(Entity.of(KEY, Recorder::create));
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static Report report(String id) throws Exception {
    return ClusterSharding.get(system).entityRefFor(KEY, id).<Report>ask(Recorder.Get::new, Duration.ofSeconds(5))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void orderHoldsWhileShardHomesBecomeKnown() throws Exception {
    // Several threads each stream to fresh entities (fresh shards): each stream starts through the
    // region while the home is unknown and switches to the shortcut once it is known. Bursts with
    // short pauses keep a backlog in the region's mailbox while homes become known, which is when
    // a shortcut could overtake a message still queued in the region.
    int threads = 2;
    int entities = 100;
    int perEntity = 600;
    report("warm-up"); // the coordinator is up, so homes become known while the streams run
    List<Thread> senders = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      String sender = "t" + t;
      Thread thread = new Thread(() -> {
        ClusterSharding sharding = ClusterSharding.get(system);
        List<EntityRef<Command>> refs = new ArrayList<>();
        for (int e = 0; e < entities; e++) {
          refs.add(sharding.entityRefFor(KEY, "o-" + e));
        }
        for (int seq = 1; seq <= perEntity; seq++) {
          for (EntityRef<Command> ref : refs) {
            ref.tell(new Msg(sender, seq));
          }
          if (seq % 3 == 0) {
            try {
              Thread.sleep(1);
            } catch (InterruptedException e) {
              return;
            }
          }
        }
      });
      senders.add(thread);
      thread.start();
    }
    for (Thread t : senders) {
      t.join();
    }
    for (int e = 0; e < entities; e++) {
      String id = "o-" + e;
      TestCluster.await(Duration.ofSeconds(30), () -> {
        try {
          return report(id).received() == threads * perEntity;
        } catch (Exception ex) {
          return false;
        }
      }, id + " received everything");
      Report r = report(id);
      assertEquals(0, r.outOfOrder(), "out of order at " + id);
    }
    assertEquals(0, ClusterSharding.get(system).shardRegionState(KEY).toCompletableFuture().get(10, TimeUnit.SECONDS)
        .droppedMessages());
  }

  @Test
  void askAnswersFromFreshAndKnownEntities() throws Exception {
    for (int i = 0; i < 50; i++) {
      Report first = report("q-" + i);
      assertEquals("q-" + i, first.entityId());
      ClusterSharding.get(system).entityRefFor(KEY, "q-" + i).tell(new Msg("x", 1));
      assertEquals(1, report("q-" + i).received(), "the tell before the ask was processed first");
    }
  }

  @Test
  void bufferIsBoundedAndOverflowGoesToDeadLetters() throws Exception {
    // A type whose role no node has: this node gets a proxy, no coordinator ever answers, and
    // every message is held in the region's buffer until it is full.
    EntityTypeKey<Command> orphan = EntityTypeKey.create(Command.class, "Orphan");
    ShardingSettings settings = ShardingSettings.create(system).withBufferSize(10);
    ActorRef<ShardingEnvelope<Command>> region = ClusterSharding.get(system).start(
        Entity.of(orphan, Recorder::create).withRole("nobody-has-this").withSettings(settings));
    TestProbe<Dropped> dropped = BadInputTest.droppedProbe(system);
    try (LogCapture logs = new LogCapture()) {
      for (int i = 0; i < 50; i++) {
        region.tell(new ShardingEnvelope<>("e-" + (i % 5), new Msg("s", i + 1)));
      }
      for (int i = 0; i < 40; i++) {
        Dropped d = dropped.expectMessageClass(Dropped.class, Duration.ofSeconds(5));
        assertTrue(d.reason().contains("[Orphan]") && d.reason().contains("buffer full"), d.reason());
      }
      // Asked after the region handled all 50: what it dropped and logged for them is in.
      ShardRegionState state = ClusterSharding.get(system).shardRegionState(orphan).toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      assertEquals(10, state.bufferedMessages());
      assertEquals(40, state.droppedMessages());
      assertEquals(0, state.shards().size());
      // One warning names the type and the shard, however many messages were dropped.
      logs.await(Duration.ofSeconds(5), "Entity type [Orphan]", "buffer full", "for shard [");
      long warnings = logs.events().stream().filter(e -> LogCapture.fullText(e).contains("buffer full")).count();
      assertEquals(1, warnings, "drop warnings are rate-limited");
    }
  }
}
