package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.EntityProbe;
import dev.shardkit.sharding.testsupport.EntityProbe.Hello;
import dev.shardkit.sharding.testsupport.EntityProbe.Msg;
import dev.shardkit.sharding.testsupport.EntityProbe.PassivateMe;
import dev.shardkit.sharding.testsupport.EntityProbe.StopYourself;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testkit.TestCluster;
import dev.shardkit.sharding.testkit.TestRememberStore;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How a shard keeps its remember-entities store in step, on the testkit's TestRememberStore: a new
 * entity starts only once it is remembered, writes are batched, passivation forgets, an entity
 * that stops by itself comes back after its back-off, a failed write is retried, and a starting
 * shard starts its remembered entities at the configured rate.
 */
class RememberEntitiesTest {
  static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = new TestCluster("Remember").startNodes(1);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @AfterEach
  void openStore() {
    cluster.rememberStore().openGate();
    cluster.rememberStore().failNextWrites(0);
    cluster.rememberStore().failNextLoads(0);
  }

  static ShardingSettings remembering(int shards) {
    return ShardingSettings.create(cluster.system(0)).withNumberOfShards(shards).withRememberEntities(true)
        .withRememberEntitiesStore("test");
  }

  static ClusterSharding sharding() {
    return ClusterSharding.get(cluster.system(0));
  }

  @Test
  void aNewEntityStartsOnlyOnceItIsRememberedAndWritesAreBatched() throws Exception {
    EntityProbe probe = new EntityProbe();
    EntityTypeKey<Msg> key = EntityTypeKey.create(Msg.class, "RememberBatched");
    sharding().start(Entity.of(key, probe::behavior).withSettings(remembering(1)));
    // The shard and its (empty) store are up before the store is held back.
    sharding().entityRefFor(key, "warm").tell(new Hello(1));
    TestCluster.await(Duration.ofSeconds(5), () -> probe.received("warm").size() == 1, "warm-up");

    cluster.rememberStore().closeGate();
    for (int i = 0; i < 50; i++) {
      sharding().entityRefFor(key, "e" + i).tell(new Hello(1));
    }
    // One shard, one sender: once the started entity has its second message, the shard has
    // handled the 50 before it (per-sender order), so a start they could cause has happened.
    sharding().entityRefFor(key, "warm").tell(new Hello(2));
    TestCluster.await(Duration.ofSeconds(5), () -> probe.received("warm").size() == 2, "the shard handled all 50");
    for (int i = 0; i < 50; i++) {
      assertEquals(0, probe.starts("e" + i), "e" + i + " must not start before it is remembered");
    }
    assertEquals(1, cluster.rememberStore().heldWrites(), "e0's write is held, the other 49 wait for it");
    cluster.rememberStore().openGate();
    for (int i = 0; i < 50; i++) {
      String id = "e" + i;
      TestCluster.await(Duration.ofSeconds(5), () -> probe.received(id).equals(List.of(1)), id + " got its message");
    }
    Set<String> expected = new HashSet<>(Set.of("warm"));
    for (int i = 0; i < 50; i++) {
      expected.add("e" + i);
    }
    assertEquals(expected, cluster.rememberStore().remembered(key.name()));
    // The first new entity's write was in flight; the 49 that came meanwhile share the next one.
    List<TestRememberStore.Write> writes = cluster.rememberStore().writes(key.name());
    assertEquals(3, writes.size(), "warm-up, e0, then the rest together: " + writes);
    assertEquals(49, writes.get(2).started().size());
  }

  @Test
  void passivationForgetsAndAnEntityThatStopsByItselfComesBack() {
    EntityProbe probe = new EntityProbe();
    EntityTypeKey<Msg> key = EntityTypeKey.create(Msg.class, "RememberStops");
    sharding().start(Entity.of(key, probe::behavior).withSettings(remembering(2)
        .withEntityRestartBackoff(Duration.ofMillis(300), Duration.ofSeconds(2))));
    sharding().entityRefFor(key, "passive").tell(new Hello(1));
    sharding().entityRefFor(key, "stopper").tell(new Hello(1));
    TestCluster.await(Duration.ofSeconds(5), () -> probe.live().containsAll(Set.of("passive", "stopper")), "started");
    assertEquals(Set.of("passive", "stopper"), cluster.rememberStore().remembered(key.name()));

    sharding().entityRefFor(key, "passive").tell(PassivateMe.INSTANCE);
    TestCluster.await(Duration.ofSeconds(5), () -> cluster.rememberStore().remembered(key.name()).equals(Set.of("stopper")),
        "a passivated entity is forgotten");
    assertTrue(!probe.live().contains("passive"));

    long stoppedAt = System.nanoTime();
    sharding().entityRefFor(key, "stopper").tell(StopYourself.INSTANCE);
    TestCluster.await(Duration.ofSeconds(5), () -> probe.starts("stopper") == 2, "it starts again by itself");
    assertTrue(System.nanoTime() - stoppedAt >= Duration.ofMillis(300).toNanos(), "after its back-off");
    assertEquals(Set.of("stopper"), cluster.rememberStore().remembered(key.name()), "and stays remembered");
    assertEquals(1, probe.starts("passive"), "the passivated one did not come back");
  }

  @Test
  void aFailedWriteIsRetriedAndTheEntityStartsAfterIt() {
    EntityProbe probe = new EntityProbe();
    EntityTypeKey<Msg> key = EntityTypeKey.create(Msg.class, "RememberRetry");
    sharding().start(Entity.of(key, probe::behavior).withSettings(remembering(1)));
    try (LogCapture log = new LogCapture()) {
      cluster.rememberStore().failNextWrites(2);
      sharding().entityRefFor(key, "a").tell(new Hello(1));
      sharding().entityRefFor(key, "a").tell(new Hello(2));
      TestCluster.await(Duration.ofSeconds(10), () -> probe.received("a").equals(List.of(1, 2)),
          "both messages, in order, after the retries");
      assertEquals(1, probe.starts("a"));
      assertEquals(Set.of("a"), cluster.rememberStore().remembered(key.name()));
      log.await(Duration.ofSeconds(1), "shard [0] could not write 1 remembered-entity change(s)", "retrying");
    }
  }

  @Test
  void aShardWhoseStoreCannotBeReadRetriesAndItsMessagesWait() {
    EntityProbe probe = new EntityProbe();
    EntityTypeKey<Msg> key = EntityTypeKey.create(Msg.class, "RememberUnreadable");
    cluster.rememberStore().preload(key.name(), "0", Set.of("old"));
    try (LogCapture log = new LogCapture()) {
      cluster.rememberStore().failNextLoads(2);
      sharding().start(Entity.of(key, probe::behavior).withSettings(remembering(1)));
      sharding().entityRefFor(key, "new").tell(new Hello(1));
      TestCluster.await(Duration.ofSeconds(10), () -> probe.received("new").equals(List.of(1))
          && probe.live().equals(Set.of("old", "new")), "the remembered entity and the new one's message, once the "
          + "store could be read");
      log.await(Duration.ofSeconds(1), "shard [0] could not read its remembered entities", "retrying");
      assertEquals(1, probe.starts("old"));
      assertEquals(Set.of("old", "new"), cluster.rememberStore().remembered(key.name()));
    }
  }

  @Test
  void aStartingShardStartsItsRememberedEntitiesAtTheConfiguredRate() {
    EntityProbe probe = new EntityProbe();
    EntityTypeKey<Msg> key = EntityTypeKey.create(Msg.class, "RememberRate");
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 30; i++) {
      ids.add("r" + i);
    }
    // Written by an earlier run of the shard: the coordinator finds the shard and places it.
    cluster.rememberStore().preload(key.name(), "0", ids);
    long start = System.nanoTime();
    sharding().start(Entity.of(key, probe::behavior).withSettings(remembering(1)
        .withRememberEntitiesRecovery(5, Duration.ofMillis(200))));
    TestCluster.await(Duration.ofSeconds(10), () -> probe.live().size() >= 5, "the first batch started");
    assertTrue(probe.live().size() < 30, "not all at once: " + probe.live().size());
    TestCluster.await(Duration.ofSeconds(10), () -> probe.live().equals(ids), "every remembered entity, unasked");
    // Six batches of five, 200 ms apart: at least a second.
    assertTrue(System.nanoTime() - start >= Duration.ofMillis(1000).toNanos());
    for (String id : ids) {
      assertEquals(List.of(), probe.received(id), id + " got no message: it started because it is remembered");
    }
  }
}
