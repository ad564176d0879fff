package dev.shardkit.sharding.ddata.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.PoisonPill;
import org.apache.pekko.actor.Props;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.ddata.DurableStore;
import org.apache.pekko.cluster.ddata.DurableStore.DurableDataEnvelope;
import org.apache.pekko.cluster.ddata.GSet;
import org.apache.pekko.cluster.ddata.LmdbDurableStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * {@link GroupCommitDurableStore} keeps the files of Pekko's LMDB durable store: a directory that
 * Pekko's store wrote loads in shardkit's, and one that shardkit's wrote (on top) loads in
 * Pekko's, with every key and value. So a node can switch stores (an upgrade, or
 * {@code group-commit = off}) and keep its remembered entities.
 */
class GroupCommitDurableStoreCompatibilityTest {
  static final AtomicInteger STORES = new AtomicInteger();
  static ActorTestKit testKit;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create();
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void pekkosStoreAndShardkitsReadEachOthersDirectory(@TempDir Path dir) {
    Config durable = ConfigFactory.parseString("lmdb { map-size = 10 MiB, write-behind-interval = off }")
        .withValue("lmdb.dir", ConfigValueFactory.fromAnyRef(dir.resolve("entities").toString()));
    TestProbe<Object> probe = testKit.createTestProbe();

    ActorRef pekko = start(LmdbDurableStore.props(durable), probe);
    assertEquals(Map.of(), loadAll(pekko, probe));
    store(pekko, "shard-1", Set.of("a", "b"), probe);
    stopStore(pekko, probe);

    ActorRef shardkit = start(Props.create(GroupCommitDurableStore.class, durable), probe);
    assertEquals(Map.of("shard-1", Set.of("a", "b")), loadAll(shardkit, probe), "shardkit's store reads Pekko's");
    store(shardkit, "shard-2", Set.of("c"), probe);
    store(shardkit, "shard-1", Set.of("a", "b", "d"), probe);
    stopStore(shardkit, probe);

    ActorRef pekkoAgain = start(LmdbDurableStore.props(durable), probe);
    assertEquals(Map.of("shard-1", Set.of("a", "b", "d"), "shard-2", Set.of("c")), loadAll(pekkoAgain, probe),
        "Pekko's store reads shardkit's");
    stopStore(pekkoAgain, probe);
  }

  private static ActorRef start(Props props, TestProbe<Object> probe) {
    return ((ExtendedActorSystem) Adapter.toClassic(testKit.system()))
        .systemActorOf(props, "durable-store-" + STORES.incrementAndGet());
  }

  private static Map<String, Set<Object>> loadAll(ActorRef store, TestProbe<Object> probe) {
    store.tell(DurableStore.LoadAll$.MODULE$, Adapter.toClassic(probe.ref()));
    Object first = probe.receiveMessage(Duration.ofSeconds(10));
    if (first == DurableStore.LoadAllCompleted$.MODULE$) {
      return Map.of();
    }
    Map<String, DurableDataEnvelope> loaded = CollectionConverters.asJava(((DurableStore.LoadData) first).data());
    probe.expectMessage(Duration.ofSeconds(10), DurableStore.LoadAllCompleted$.MODULE$);
    Map<String, Set<Object>> elements = new java.util.HashMap<>();
    loaded.forEach((key, envelope) -> elements.put(key,
        Set.copyOf(CollectionConverters.asJava(((GSet<?>) envelope.data()).elements()))));
    return elements;
  }

  private static void store(ActorRef store, String key, Set<String> elements, TestProbe<Object> probe) {
    GSet<String> set = GSet.create();
    for (String element : elements) {
      set = set.add(element);
    }
    store.tell(new DurableStore.Store(key, new DurableDataEnvelope(set),
        Option.apply(new DurableStore.StoreReply("stored " + key, "failed " + key, Adapter.toClassic(probe.ref())))),
        ActorRef.noSender());
    probe.expectMessage(Duration.ofSeconds(10), "stored " + key);
  }

  /** Stops a store and waits until it has closed its files, so that the next one may open them. */
  private static void stopStore(ActorRef store, TestProbe<Object> probe) {
    store.tell(PoisonPill.getInstance(), ActorRef.noSender());
    probe.expectTerminated(Adapter.toTyped(store), Duration.ofSeconds(10));
  }
}
