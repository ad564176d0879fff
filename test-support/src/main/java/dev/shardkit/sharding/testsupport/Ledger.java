package dev.shardkit.sharding.testsupport;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityContext;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.testkit.CborSerializable;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * An external checker for in-JVM clusters: entities record every message they receive here, so
 * what is counted survives the entity moving between nodes. Afterwards a test compares what was
 * sent with what arrived: lost, duplicated and reordered messages, and entities alive in two
 * places at once.
 */
public final class Ledger {
  public interface Command {}

  /** The {@code seq}-th message (from 1) of {@code sender} to one entity. */
  public record Msg(String sender, int seq) implements Command, CborSerializable {}

  /** Per (entity, sender): the next sequence number expected and the anomalies seen. */
  private static final class Stream {
    final java.util.BitSet seen = new java.util.BitSet();
    int expected = 1;
    int received;
    int duplicated;
    int reordered;
  }

  private final Map<String, Map<String, Stream>> streams = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> live = new ConcurrentHashMap<>();
  private final Set<String> doubleIncarnations = ConcurrentHashMap.newKeySet();
  private final Map<String, AtomicInteger> incarnations = new ConcurrentHashMap<>();

  /**
   * Starts {@code key} with this ledger's entities on every node of {@code cluster}, over
   * {@code shards} shards placed on demand (so a shard's first use needs a write to the coordinator's
   * store), and waits until the coordinator runs on the oldest node.
   */
  public void startOnDemand(TestCluster cluster, EntityTypeKey<Command> key, int shards) {
    for (ActorSystem<Void> s : cluster.systems()) {
      ClusterSharding.get(s).start(Entity.of(key, this::entity)
          .withSettings(ShardingSettings.create(s).withNumberOfShards(shards).withPlaceAllShardsAtStart(false)));
    }
    TestCluster.await(Duration.ofSeconds(30), () -> cluster.coordinatorRunsOn(0, key.name()),
        "the coordinator runs on the oldest node");
  }

  /** Senders named {@code prefix + i} for the nodes {@code from} to {@code to - 1} of {@code cluster}. */
  public static Map<String, ActorSystem<?>> senders(String prefix, TestCluster cluster, int from, int to) {
    Map<String, ActorSystem<?>> senders = new LinkedHashMap<>();
    for (int i = from; i < to; i++) {
      senders.put(prefix + i, cluster.system(i));
    }
    return senders;
  }

  /** The entity behavior that records into this ledger. */
  public Behavior<Command> entity(EntityContext<Command> ctx) {
    return entity(ctx, 0);
  }

  /**
   * The entity behavior that records into this ledger and, if {@code passivateEvery} is above 0,
   * asks its shard to passivate it after every that many messages.
   */
  public Behavior<Command> entity(EntityContext<Command> ctx, int passivateEvery) {
    return Behaviors.setup(context -> {
      String id = ctx.entityId();
      incarnations.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
      if (live.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet() > 1) {
        doubleIncarnations.add(id);
      }
      Map<String, Stream> perSender = streams.computeIfAbsent(id, k -> new ConcurrentHashMap<>());
      int[] count = {0};
      return Behaviors.receive(Command.class)
          .onMessage(Msg.class, m -> {
            if (passivateEvery > 0 && ++count[0] % passivateEvery == 0) {
              ctx.shard().tell(new dev.shardkit.sharding.Passivate(context.getSelf()));
            }
            Stream s = perSender.computeIfAbsent(m.sender(), k -> new Stream());
            synchronized (s) {
              s.received++;
              s.seen.set(m.seq());
              if (m.seq() == s.expected) {
                s.expected++;
              } else if (m.seq() < s.expected) {
                s.duplicated++;
              } else {
                s.reordered++;
                s.expected = m.seq() + 1;
              }
            }
            return Behaviors.same();
          })
          .onSignal(PostStop.class, p -> {
            live.get(id).decrementAndGet();
            return Behaviors.same();
          })
          .build();
    });
  }

  /** Messages {@code sender} got through to {@code entityId}, duplicates included. */
  public int received(String entityId, String sender) {
    Stream s = streams.getOrDefault(entityId, Map.of()).get(sender);
    if (s == null) {
      return 0;
    }
    synchronized (s) {
      return s.received;
    }
  }

  /**
   * The numbers, from {@code from} to {@code to}, of the messages of {@code sender} that never
   * reached {@code entityId}.
   */
  public List<Integer> missing(String entityId, String sender, int from, int to) {
    Stream s = streams.getOrDefault(entityId, Map.of()).get(sender);
    List<Integer> missing = new ArrayList<>();
    for (int seq = from; seq <= to; seq++) {
      boolean seen;
      if (s == null) {
        seen = false;
      } else {
        synchronized (s) {
          seen = s.seen.get(seq);
        }
      }
      if (!seen) {
        missing.add(seq);
      }
    }
    return missing;
  }

  /** How often the entity was started (1 if it never moved or passivated). */
  public int incarnations(String entityId) {
    AtomicInteger n = incarnations.get(entityId);
    return n == null ? 0 : n.get();
  }

  public Set<String> doubleIncarnations() {
    return Set.copyOf(doubleIncarnations);
  }

  /**
   * Waits (up to {@code max}) until every sent message has arrived, then compares; a report with
   * lost messages comes back after {@code max} rather than an opaque timeout.
   */
  public Report awaitAndCheck(List<String> entityIds, Map<String, Integer> sent, java.time.Duration max) {
    long deadline = System.nanoTime() + max.toNanos();
    while (System.nanoTime() < deadline && !entityIds.stream().allMatch(id -> sent.entrySet().stream()
        .allMatch(e -> received(id, e.getKey()) >= e.getValue()))) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return check(entityIds, sent);
  }

  /**
   * Compares with what was sent: {@code sent.get(sender)} messages, numbered from 1, to each of
   * {@code entityIds}.
   */
  public Report check(List<String> entityIds, Map<String, Integer> sent) {
    long lost = 0;
    long duplicated = 0;
    long reordered = 0;
    List<String> examples = new ArrayList<>();
    for (String id : entityIds) {
      for (Map.Entry<String, Integer> e : sent.entrySet()) {
        Stream s = streams.getOrDefault(id, Map.of()).get(e.getKey());
        int received = 0;
        int dup = 0;
        int reo = 0;
        if (s != null) {
          synchronized (s) {
            received = s.received;
            dup = s.duplicated;
            reo = s.reordered;
          }
        }
        int missing = e.getValue() - (received - dup);
        lost += Math.max(0, missing);
        duplicated += dup;
        reordered += reo;
        if ((missing > 0 || dup > 0 || reo > 0) && examples.size() < 5) {
          examples.add(id + " from " + e.getKey() + ": sent " + e.getValue() + ", received " + received
              + ", duplicated " + dup + ", reordered " + reo);
        }
      }
    }
    return new Report(lost, duplicated, reordered, doubleIncarnations(), examples);
  }

  /** What {@link #check} found. */
  public record Report(long lost, long duplicated, long reordered, Set<String> doubleIncarnations,
      List<String> examples) {
    public boolean clean() {
      return lost == 0 && duplicated == 0 && reordered == 0 && doubleIncarnations.isEmpty();
    }
  }
}
