package dev.shardkit.sharding.ddata.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Props;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.ddata.DurableStore;
import org.apache.pekko.cluster.ddata.DurableStore.DurableDataEnvelope;
import org.apache.pekko.cluster.ddata.GSet;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.Option;

/**
 * What {@link GroupCommitDurableStore} promises, over a file the test controls: stores that
 * arrive while a commit is under way are written together in the next one, and each store is
 * answered only after the transaction that holds it is committed, with its failure message if
 * that transaction failed.
 */
class GroupCommitDurableStoreTest {
  static final Config DURABLE = ConfigFactory.parseString("lmdb.write-behind-interval = off");
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
  void storesArrivingDuringACommitAreWrittenInOneTransactionAndAnsweredAfterIt() throws Exception {
    HeldFile file = new HeldFile();
    TestProbe<Object> replies = testKit.createTestProbe();
    ActorRef store = start(file);

    store.tell(store("k0", "a", replies), ActorRef.noSender());
    assertTrue(file.entered.await(10, TimeUnit.SECONDS), "the first store is being written");
    for (int i = 1; i <= 4; i++) {
      store.tell(store("k" + i, "b" + i, replies), ActorRef.noSender());
    }
    // A second store of a key in the same batch: written once, with its latest value, answered twice.
    store.tell(store("k1", "c", replies), ActorRef.noSender());
    replies.expectNoMessage(Duration.ofMillis(300));

    file.release.countDown();
    List<Object> answered = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Object reply = replies.receiveMessage(Duration.ofSeconds(10));
      answered.add(reply);
      String key = ((String) reply).substring("ok ".length());
      assertTrue(file.committedKeys().contains(key), "answered " + key + " only once committed");
    }
    assertEquals(List.of("ok k0", "ok k1", "ok k2", "ok k3", "ok k4", "ok k1"), answered);
    assertEquals(List.of(Set.of("k0"), Set.of("k1", "k2", "k3", "k4")), file.batchKeys());
    assertEquals(Set.of("c"), file.committedValue("k1"), "the later store of k1 wins");
  }

  @Test
  void aFailedTransactionAnswersEveryStoreOfItWithItsFailureAndTheNextOneWrites() throws Exception {
    HeldFile file = new HeldFile();
    file.release.countDown();
    file.failNext = true;
    TestProbe<Object> replies = testKit.createTestProbe();
    ActorRef store = start(file);

    store.tell(store("k0", "a", replies), ActorRef.noSender());
    assertEquals("failed k0", replies.receiveMessage(Duration.ofSeconds(10)));
    store.tell(store("k1", "b", replies), ActorRef.noSender());
    assertEquals("ok k1", replies.receiveMessage(Duration.ofSeconds(10)));
    assertEquals(List.of(Set.of("k1")), file.batchKeys(), "the failed transaction wrote nothing");
  }

  private static ActorRef start(HeldFile file) {
    return ((ExtendedActorSystem) Adapter.toClassic(testKit.system()))
        .systemActorOf(Props.create(TestStore.class, () -> new TestStore(file)), "store-" + STORES.incrementAndGet());
  }

  private static DurableStore.Store store(String key, String element, TestProbe<Object> replies) {
    DurableStore.StoreReply reply = new DurableStore.StoreReply("ok " + key, "failed " + key,
        Adapter.toClassic(replies.ref()));
    return new DurableStore.Store(key, new DurableDataEnvelope(GSet.create().add(element)), Option.apply(reply));
  }

  static final class TestStore extends GroupCommitDurableStore {
    TestStore(HeldFile file) {
      super(DURABLE, (config, context) -> file);
    }
  }

  /** An in-memory file whose writes wait for the test, recorded batch by batch once committed. */
  static final class HeldFile implements DurableFile {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    volatile boolean failNext;
    private final List<Map<String, byte[]>> committed = new ArrayList<>();

    @Override
    public Map<String, byte[]> readAll() {
      return new HashMap<>();
    }

    @Override
    public void write(Map<String, byte[]> values) {
      entered.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      if (failNext) {
        failNext = false;
        throw new IllegalStateException("disk full");
      }
      synchronized (this) {
        committed.add(new HashMap<>(values));
      }
    }

    synchronized List<Set<String>> batchKeys() {
      return committed.stream().map(b -> Set.copyOf(b.keySet())).toList();
    }

    synchronized Set<String> committedKeys() {
      return committed.stream().flatMap(b -> b.keySet().stream()).collect(java.util.stream.Collectors.toSet());
    }

    synchronized Set<Object> committedValue(String key) throws Exception {
      byte[] bytes = committed.get(committed.size() - 1).get(key);
      var serializer = (SerializerWithStringManifest) SerializationExtension.get(Adapter.toClassic(testKit.system()))
          .serializerFor(DurableDataEnvelope.class);
      DurableDataEnvelope envelope = (DurableDataEnvelope) serializer.fromBinary(bytes,
          serializer.manifest(new DurableDataEnvelope(GSet.create())));
      return Set.copyOf(scala.jdk.javaapi.CollectionConverters.asJava(((GSet<?>) envelope.data()).elements()));
    }

    @Override
    public void close() {}
  }
}
