package dev.shardkit.sharding.ddata;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.ddata.internal.DurableFile;
import dev.shardkit.sharding.ddata.internal.GroupCommitDurableStore;
import dev.shardkit.sharding.ddata.internal.ShardEntitiesKeys;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import dev.shardkit.sharding.testsupport.Network;
import dev.shardkit.sharding.testkit.TestCluster;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.cluster.ddata.DurableStore;
import org.apache.pekko.cluster.ddata.ORSet;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A confirmed remember-entities write is on the node's disk, also when the disk is slower than
 * the write timeout: one node (no other replica to confirm; the store then writes locally), whose
 * remembered-entities replicator keeps its keys in {@link SlowDisk}, shardkit's group-commit
 * durable store over a disk that writes only when the test lets it; and the same on a node with a second replica whose disk keeps up (a
 * majority write, which that replica confirms in time). A shard starts a remembered entity only
 * once its write is confirmed, and the node may stop right after; a write still queued for the
 * disk then is lost.
 */
class DDataRememberEntitiesOnDiskTest {
  // A short write timeout so that the held writes outlast it quickly; the store must still not confirm.
  static final String BASE = """
      shardkit.sharding.remember-entities = on
      shardkit.sharding.ddata { write-timeout = 1s, read-timeout = 2s }
      pekko.cluster.downing-provider-class = ""
      """ + Network.TEST_MODE;
  static final String CONFIG = BASE + "shardkit.sharding.ddata.replicator.durable.store-actor-class = \""
      + SlowDisk.class.getName() + "\"\n";
  static final DDataRememberEntitiesStoreProvider PROVIDER = new DDataRememberEntitiesStoreProvider();

  static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = new TestCluster("DDataOnDisk");
    cluster.add(CONFIG);
    cluster.awaitUp(1);
    PROVIDER.startOnNode(cluster.system(0), "Cart", ShardingSettings.create(cluster.system(0)));
  }

  @AfterAll
  static void stop() {
    SlowDisk.release();
    cluster.close();
  }

  @Test
  void aWriteIsConfirmedOnlyOnceItIsOnDisk() throws Exception {
    RememberEntitiesStore store = PROVIDER.create(cluster.system(0), "Cart", "7",
        ShardingSettings.create(cluster.system(0)));
    SlowDisk.hold();
    CompletableFuture<Void> held = store.update(Set.of("a"), Set.of()).toCompletableFuture();
    // Well past the write timeout: the replicator has answered by itself by now.
    Exception notConfirmed = assertThrows(Exception.class, () -> held.get(6, TimeUnit.SECONDS),
        "a write must not be confirmed while the disk has not written it");
    assertFalse(SlowDisk.holds("a"), "nothing was written yet: " + notConfirmed);

    SlowDisk.release();
    // The shard retries a failed write; once confirmed, it is on disk.
    store.update(Set.of("a"), Set.of()).toCompletableFuture().get(20, TimeUnit.SECONDS);
    assertTrue(SlowDisk.holds("a"), "a confirmed write is on disk");
    store.close();
  }

  @Test
  void aMajorityWriteIsConfirmedOnlyOnceItIsOnThisNodesDisk(@TempDir Path disk) throws Exception {
    try (TestCluster two = new TestCluster("DDataOnDiskTwo")) {
      two.add(CONFIG);
      two.add(BASE + "shardkit.sharding.ddata.remember-entities.lmdb.dir = \"" + disk + "\"\n");
      two.awaitUp(2);
      for (int i = 0; i < 2; i++) {
        PROVIDER.startOnNode(two.system(i), "Cart", ShardingSettings.create(two.system(i)));
      }
      RememberEntitiesStore store = PROVIDER.create(two.system(0), "Cart", "8",
          ShardingSettings.create(two.system(0)));
      // Listed first, so that the held write below is the entities' write itself.
      store.update(Set.of("b"), Set.of()).toCompletableFuture().get(20, TimeUnit.SECONDS);
      SlowDisk.hold();
      CompletableFuture<Void> held = store.update(Set.of("c"), Set.of()).toCompletableFuture();
      // The other replica confirms at once; this node's disk not at all.
      Exception notConfirmed = assertThrows(Exception.class, () -> held.get(6, TimeUnit.SECONDS),
          "a write must not be confirmed while this node's disk has not written it");
      assertFalse(SlowDisk.holds("c"), "nothing was written yet: " + notConfirmed);

      SlowDisk.release();
      store.update(Set.of("c"), Set.of()).toCompletableFuture().get(20, TimeUnit.SECONDS);
      assertTrue(SlowDisk.holds("c"), "a confirmed write is on disk");
      store.close();
    }
  }

  /**
   * shardkit's group-commit durable store over a disk in memory with nothing to load, which, while
   * the test holds it, blocks in its write (and so holds back the store's commit and every reply)
   * as a disk far behind would.
   */
  public static final class SlowDisk extends GroupCommitDurableStore {
    private static final Object LOCK = new Object();
    private static boolean holding;
    private static final ConcurrentHashMap<String, ORSet<?>> WRITTEN = new ConcurrentHashMap<>();

    public SlowDisk(Config config) {
      super(config, (c, context) -> new HeldDisk(context.getSystem()));
    }

    static void hold() {
      synchronized (LOCK) {
        holding = true;
      }
    }

    /** Lets the held write, and every later one, through. */
    static void release() {
      synchronized (LOCK) {
        holding = false;
        LOCK.notifyAll();
      }
    }

    /** Whether an entity id is in a shard's key as written. */
    static boolean holds(String entityId) {
      return WRITTEN.entrySet().stream().anyMatch(e -> e.getKey().startsWith(ShardEntitiesKeys.PREFIX + "Cart/")
          && e.getValue().getElements().contains(entityId));
    }

    private static final class HeldDisk implements DurableFile {
      private final SerializerWithStringManifest serializer;
      private final String manifest;

      HeldDisk(org.apache.pekko.actor.ActorSystem system) {
        try {
          serializer = (SerializerWithStringManifest) SerializationExtension.get(system)
              .serializerFor(DurableStore.DurableDataEnvelope.class);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        manifest = serializer.manifest(new DurableStore.DurableDataEnvelope(ORSet.create()));
      }

      @Override
      public Map<String, byte[]> readAll() {
        return Map.of();
      }

      @Override
      public void write(Map<String, byte[]> values) {
        synchronized (LOCK) {
          while (holding) {
            try {
              LOCK.wait();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IllegalStateException("interrupted while the disk was held", e);
            }
          }
        }
        values.forEach((key, bytes) -> {
          try {
            WRITTEN.put(key, (ORSet<?>) ((DurableStore.DurableDataEnvelope) serializer.fromBinary(bytes, manifest))
                .data());
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
      }

      @Override
      public void close() {}
    }
  }
}
