package dev.shardkit.sharding.testsupport;

import com.fasterxml.jackson.annotation.JsonCreator;
import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityContext;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.testkit.CborSerializable;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * A test entity that checks what it receives: per sender, every sequence number must be the
 * previous one plus one. It counts messages, gaps, repeats and reorders, and tracks its live
 * incarnations JVM-wide so a test can see an entity alive in two places.
 */
public final class Recorder {
  public interface Command {}

  /** The {@code seq}-th message (from 1) of {@code sender} to this entity. */
  public record Msg(String sender, int seq) implements Command, CborSerializable {}

  public record Get(ActorRef<Report> replyTo) implements Command, CborSerializable {}

  /** What an entity saw: per sender the last sequence number, and the anomalies. */
  public record Report(String entityId, String host, Map<String, Integer> lastSeq, int received, int outOfOrder)
      implements CborSerializable {
    @JsonCreator
    public Report {}
  }

  /** Not bound to any serializer: cannot cross to another node. */
  public record Unserializable(String note) implements Command {}

  /** Live incarnations per entity id, over every system in this JVM. */
  public static final Map<String, AtomicInteger> LIVE = new ConcurrentHashMap<>();
  /** Entity ids that were ever alive in two places at once. */
  public static final Set<String> DOUBLE_INCARNATIONS = ConcurrentHashMap.newKeySet();

  private Recorder() {}

  public static void reset() {
    LIVE.clear();
    DOUBLE_INCARNATIONS.clear();
  }

  /**
   * Forgets every incarnation seen so far, then starts a cluster of {@code nodes} nodes named
   * {@code name}, each with {@code key}'s recorders in {@code numberOfShards} shards.
   */
  public static TestCluster startCluster(String name, int nodes, EntityTypeKey<Command> key, int numberOfShards) {
    reset();
    TestCluster cluster = new TestCluster(name).startNodes(nodes);
    for (ActorSystem<Void> s : cluster.systems()) {
      ClusterSharding.get(s).start(Entity.of(key, Recorder::create)
          .withSettings(ShardingSettings.create(s).withNumberOfShards(numberOfShards)));
    }
    return cluster;
  }

  /** What entity {@code id} of {@code key} reports, asked from {@code from}. */
  public static Report ask(ActorSystem<?> from, EntityTypeKey<Command> key, String id) throws Exception {
    return ClusterSharding.get(from).entityRefFor(key, id).<Report>ask(Get::new, Duration.ofSeconds(5))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Waits until entity {@code id} of {@code key}, asked from {@code from}, has received {@code count} messages. */
  public static void awaitReceived(ActorSystem<?> from, EntityTypeKey<Command> key, String id, int count) {
    TestCluster.await(Duration.ofSeconds(30), () -> {
      try {
        return ask(from, key, id).received() == count;
      } catch (Exception e) {
        return false;
      }
    }, id + " received " + count);
  }

  public static Behavior<Command> create(EntityContext<Command> ctx) {
    return Behaviors.setup(context -> {
      String id = ctx.entityId();
      if (LIVE.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet() > 1) {
        DOUBLE_INCARNATIONS.add(id);
      }
      String host = Cluster.get(context.getSystem()).selfMember().address().toString();
      Map<String, Integer> last = new HashMap<>();
      int[] received = {0};
      int[] outOfOrder = {0};
      return Behaviors.receive(Command.class)
          .onMessage(Msg.class, m -> {
            received[0]++;
            int previous = last.getOrDefault(m.sender(), 0);
            if (m.seq() != previous + 1) {
              outOfOrder[0]++;
            }
            last.put(m.sender(), Math.max(previous, m.seq()));
            return Behaviors.same();
          })
          .onMessage(Get.class, g -> {
            g.replyTo().tell(new Report(id, host, Map.copyOf(last), received[0], outOfOrder[0]));
            return Behaviors.same();
          })
          .onSignal(PostStop.class, s -> {
            LIVE.get(id).decrementAndGet();
            return Behaviors.same();
          })
          .build();
    });
  }
}
