package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testkit.CborSerializable;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An entity that passivates itself every few messages while a sender streams to it: every
 * message reaches exactly one incarnation, in order, with or without a stop message of its own.
 */
class PassivationTest {
  interface Cmd {}

  record Seq(int n) implements Cmd, CborSerializable {}

  enum Stop implements Cmd, CborSerializable { INSTANCE }

  static final Map<String, List<Integer>> SEEN = new ConcurrentHashMap<>();
  static final Map<String, AtomicInteger> INCARNATIONS = new ConcurrentHashMap<>();
  static final Map<String, AtomicInteger> LIVE = new ConcurrentHashMap<>();
  static final List<String> OVERLAPS = new CopyOnWriteArrayList<>();

  /** Records each message JVM-wide (state outlives incarnations) and passivates every 7th. */
  static Behavior<Cmd> passivating(EntityContext<Cmd> ctx) {
    return Behaviors.setup(context -> {
      String id = ctx.entityId();
      INCARNATIONS.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
      if (LIVE.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet() > 1) {
        OVERLAPS.add(id);
      }
      int[] count = {0};
      return Behaviors.receive(Cmd.class)
          .onMessage(Seq.class, s -> {
            SEEN.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()).add(s.n());
            if (++count[0] % 7 == 0) {
              ctx.shard().tell(new Passivate(context.getSelf()));
            }
            return Behaviors.same();
          })
          .onMessageEquals(Stop.INSTANCE, Behaviors::stopped)
          .onSignal(PostStop.class, p -> {
            LIVE.get(id).decrementAndGet();
            return Behaviors.same();
          })
          .build();
    });
  }

  static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = new TestCluster("Passivation").startNodes(1);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  void streamAndCheck(EntityTypeKey<Cmd> key, String prefix) {
    int entities = 20;
    int perEntity = 300;
    List<EntityRef<Cmd>> refs = new ArrayList<>();
    for (int e = 0; e < entities; e++) {
      refs.add(ClusterSharding.get(cluster.system(0)).entityRefFor(key, prefix + e));
    }
    // Short pauses let entities passivate mid-stream, so messages arrive while they stop.
    for (int n = 1; n <= perEntity; n++) {
      for (EntityRef<Cmd> ref : refs) {
        ref.tell(new Seq(n));
      }
      if (n % 5 == 0) {
        try {
          Thread.sleep(2);
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
      }
    }
    for (int e = 0; e < entities; e++) {
      String id = prefix + e;
      TestCluster.await(Duration.ofSeconds(30), () -> SEEN.getOrDefault(id, List.of()).size() >= perEntity,
          id + " saw every message");
      List<Integer> expected = new ArrayList<>();
      for (int n = 1; n <= perEntity; n++) {
        expected.add(n);
      }
      assertEquals(expected, SEEN.get(id), "every message once, in order, at " + id);
    }
    int incarnations = refs.stream().mapToInt(r -> INCARNATIONS.get(r.entityId()).get()).sum();
    assertTrue(incarnations > entities, "entities really passivated mid-stream: " + incarnations
        + " incarnations of " + entities + " entities");
    assertTrue(OVERLAPS.isEmpty(), "two incarnations alive at once: " + OVERLAPS);
  }

  @Test
  void passivationWithTheDefaultStopLosesNothing() {
    EntityTypeKey<Cmd> key = EntityTypeKey.create(Cmd.class, "PassivateDefault");
    ClusterSharding.get(cluster.system(0)).start(Entity.of(key, PassivationTest::passivating));
    streamAndCheck(key, "d-");
  }

  @Test
  void passivationWithAStopMessageLosesNothing() {
    EntityTypeKey<Cmd> key = EntityTypeKey.create(Cmd.class, "PassivateStopMessage");
    ClusterSharding.get(cluster.system(0)).start(Entity.of(key, PassivationTest::passivating)
        .withStopMessage(Stop.INSTANCE));
    streamAndCheck(key, "s-");
  }
}
