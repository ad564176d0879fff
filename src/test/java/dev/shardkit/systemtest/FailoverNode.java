package dev.shardkit.systemtest;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.EntityTypeKey;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;

/**
 * One node of {@link CrashFailoverTest}, in its own JVM:
 *
 * <pre>
 * FailoverNode &lt;port&gt; &lt;seed ports&gt; &lt;name&gt; &lt;nodes&gt; &lt;entities&gt; &lt;deadline seconds&gt; &lt;extra config&gt;
 *              [&lt;witness directory&gt;]
 * </pre>
 *
 * <p>With a witness directory, its entities also record every incarnation's start and every
 * message they process to the node's {@link Witness} file, for {@link WitnessLog}'s checks.
 *
 * <p>Its entities acknowledge every message to the sending node, so what a sender got through is
 * known even for entities whose node was killed afterwards. Commands on stdin:
 * <ul>
 *   <li>(none) → {@code FORMED} once all nodes are Up and all regions registered;
 *   <li>{@code TRAFFIC} → rounds of one numbered message to every entity, {@value #PAUSE_MS} ms
 *       apart, until {@code STOP}; answers {@code STARTED};
 *   <li>{@code MARK} → remembers the current round as the one a node was killed in;
 *   <li>{@code AWAIT <what>} → {@code REACHED what=… round=…} once this node has seen what it names
 *       (see {@link Awaited}), so a test waits for the cluster's own events, not for a fixed time;
 *   <li>{@code HELD} → {@code HELD buffered=…}: the messages this node's region holds now;
 *   <li>{@code STOP} → stops sending, waits until acknowledgements stop coming, and prints
 *       {@code REPORT} with what was sent and acknowledged since the mark, and what was lost
 *       among the messages sent after this node saw another one unreachable.
 * </ul>
 */
public final class FailoverNode {
  static final EntityTypeKey<Ping> TYPE = EntityTypeKey.create(Ping.class, "Acked");
  static final String SYSTEM_NAME = "FailoverTest";
  static final int PAUSE_MS = 50;
  /**
   * Rounds after this node saw a node unreachable in which its own region may not have heard it
   * yet (the region gets the same event a moment later); messages sent after that must arrive.
   */
  static final int DETECTION_MARGIN_ROUNDS = 10;

  /** A numbered message from a sending node; the entity acknowledges it to {@code ackTo}. */
  public record Ping(String sender, int seq, ActorRef<Ack> ackTo) implements SeqCounter.CborSerializable {}

  public record Ack(int entity, int seq) implements SeqCounter.CborSerializable {}

  /** What {@code AWAIT} waits for, each seen from this node. */
  enum Awaited {
    /** Every entity acknowledged a message this node sent after the command: all shards have homes it knows. */
    ANSWERED,
    /** This node saw another one unreachable. */
    UNREACHABLE,
    /** This node saw another one removed, and then every entity acknowledged a message sent after that. */
    REMOVED,
    /** This node saw an unreachable node reachable again, and then every entity acknowledged a later message. */
    REACHABLE
  }

  private FailoverNode() {}

  static Behavior<Ping> entity(String entityId, Witness witness) {
    int index = Integer.parseInt(entityId.substring(entityId.indexOf('-') + 1));
    return Behaviors.setup(ctx -> {
      int incarnation = witness == null ? 0 : witness.started(index);
      return Behaviors.receive(Ping.class)
          .onMessage(Ping.class, p -> {
            if (witness != null) {
              witness.processed(index, incarnation, FreezeNode.nodeIndex(p.sender()), p.seq());
            }
            p.ackTo().tell(new Ack(index, p.seq()));
            return Behaviors.same();
          })
          .build();
    });
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 7 && args.length != 8) {
      System.err.println("usage: FailoverNode <port> <seedPorts> <name> <nodes> <entities> <deadlineSeconds> <config> "
          + "[<witnessDir>]");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    List<Integer> seedPorts = Arrays.stream(args[1].split(",")).map(Integer::parseInt).toList();
    String name = args[2];
    int nodes = Integer.parseInt(args[3]);
    int entities = Integer.parseInt(args[4]);
    NodeSupport.startDeadline(name, Long.parseLong(args[5]));
    Witness witness = args.length == 8 ? Witness.open(java.nio.file.Path.of(args[7]).resolve(name + ".bin")) : null;

    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), SYSTEM_NAME,
        NodeSupport.config(SYSTEM_NAME, port, seedPorts, args[6]));
    ClusterSharding sharding = ClusterSharding.get(system);
    sharding.start(Entity.of(TYPE, ctx -> entity(ctx.entityId(), witness)));

    BitSet[] acked = new BitSet[entities];
    for (int e = 0; e < entities; e++) {
      acked[e] = new BitSet();
    }
    ActorRef<Ack> collector = system.systemActorOf(Behaviors.receive(Ack.class).onMessage(Ack.class, a -> {
      synchronized (acked) {
        acked[a.entity()].set(a.seq());
      }
      return Behaviors.same();
    }).build(), "ack-collector", Props.empty());

    AtomicInteger round = new AtomicInteger();
    AtomicInteger unreachableAt = new AtomicInteger(-1);
    AtomicInteger reachableAgainAt = new AtomicInteger(-1);
    AtomicInteger removedAt = new AtomicInteger(-1);
    system.systemActorOf(Behaviors.<ClusterEvent.ClusterDomainEvent>setup(ctx -> {
      Cluster.get(ctx.getSystem()).subscriptions()
          .tell(Subscribe.create(ctx.getSelf(), ClusterEvent.ClusterDomainEvent.class));
      return Behaviors.receiveMessage(event -> {
        if (event instanceof ClusterEvent.UnreachableMember) {
          unreachableAt.compareAndSet(-1, round.get());
        } else if (event instanceof ClusterEvent.ReachableMember && unreachableAt.get() >= 0) {
          reachableAgainAt.compareAndSet(-1, round.get());
        } else if (event instanceof ClusterEvent.MemberRemoved) {
          removedAt.compareAndSet(-1, round.get());
        }
        return Behaviors.same();
      });
    }), "membership-listener", Props.empty());

    NodeSupport.awaitFormed(system, sharding, TYPE, nodes);
    NodeSupport.out("FORMED node=" + name + " address=" + Cluster.get(system).selfMember().address()
        + " coordinator=" + NodeSupport.runsCoordinator(system, TYPE));

    List<EntityRef<Ping>> refs = new ArrayList<>();
    for (int e = 0; e < entities; e++) {
      refs.add(sharding.entityRefFor(TYPE, "entity-" + e));
    }
    int[] markedAt = {-1};
    Thread traffic = null;
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String command;
    while ((command = in.readLine()) != null) {
      switch (command.trim()) {
        case "TRAFFIC" -> {
          traffic = new Thread(() -> {
            while (!STOP_TRAFFIC.get()) {
              int seq = round.incrementAndGet();
              for (EntityRef<Ping> ref : refs) {
                ref.tell(new Ping(name, seq, collector));
              }
              try {
                Thread.sleep(PAUSE_MS);
              } catch (InterruptedException e) {
                return;
              }
            }
          }, "traffic");
          traffic.start();
          NodeSupport.out("STARTED node=" + name);
        }
        case "MARK" -> markedAt[0] = round.get();
        case "AWAIT ANSWERED" -> awaitAnswered(acked, name, Awaited.ANSWERED, round::get, round.get());
        case "AWAIT UNREACHABLE" -> {
          while (unreachableAt.get() < 0) {
            Thread.sleep(POLL_MS);
          }
          NodeSupport.out("REACHED node=" + name + " what=" + Awaited.UNREACHABLE + " round=" + unreachableAt.get());
        }
        case "AWAIT REMOVED" -> awaitAnswered(acked, name, Awaited.REMOVED, round::get, awaitSeen(removedAt));
        case "AWAIT REACHABLE" -> awaitAnswered(acked, name, Awaited.REACHABLE, round::get,
            awaitSeen(reachableAgainAt));
        case "HELD" -> NodeSupport.out("HELD node=" + name + " buffered=" + sharding.shardRegionState(TYPE,
            java.time.Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS).bufferedMessages());
        case "STOP" -> {
          STOP_TRAFFIC.set(true);
          if (traffic != null) {
            traffic.join();
          }
          awaitQuiet(acked, sharding);
          if (witness != null) {
            witness.flush();
          }
          report(name, acked, round.get(), Math.max(markedAt[0], 0), unreachableAt.get());
        }
        default -> System.err.println(name + ": unknown command [" + command + "]");
      }
    }
    Runtime.getRuntime().halt(0);
  }

  private static final AtomicBoolean STOP_TRAFFIC = new AtomicBoolean();
  /** How often a waiting command looks at what it waits for; the wait ends on the event, not on a time. */
  private static final int POLL_MS = 20;

  /** The round in which this node first saw the event, once it has. */
  private static int awaitSeen(AtomicInteger seenAt) throws InterruptedException {
    while (seenAt.get() < 0) {
      Thread.sleep(POLL_MS);
    }
    return seenAt.get();
  }

  /**
   * Waits until every entity acknowledged a message of a round after {@code after}, then prints
   * {@code REACHED}. The test's own timeout bounds the wait: a cluster that never recovers fails it.
   */
  private static void awaitAnswered(BitSet[] acked, String name, Awaited what, java.util.function.IntSupplier round,
      int after) throws InterruptedException {
    while (!answeredAfter(acked, after)) {
      Thread.sleep(POLL_MS);
    }
    NodeSupport.out("REACHED node=" + name + " what=" + what + " after=" + after + " round=" + round.getAsInt());
  }

  private static boolean answeredAfter(BitSet[] acked, int after) {
    synchronized (acked) {
      for (BitSet b : acked) {
        if (b.nextSetBit(after + 1) < 0) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Waits until this node's region holds no message (one waiting for a shard's home or for a
   * hand-off to end is late, not lost) and no acknowledgement has come for two seconds; at most
   * 60 s, after which what is missing counts as lost.
   */
  private static void awaitQuiet(BitSet[] acked, ClusterSharding sharding) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    long last = -1;
    int quietFor = 0;
    while ((quietFor < 4 || heldHere(sharding) > 0) && System.nanoTime() < deadline) {
      long total = 0;
      synchronized (acked) {
        for (BitSet b : acked) {
          total += b.cardinality();
        }
      }
      quietFor = total == last ? quietFor + 1 : 0;
      last = total;
      Thread.sleep(500);
    }
  }

  /** The messages this node's region holds now; a region that does not answer counts as holding. */
  private static long heldHere(ClusterSharding sharding) {
    try {
      return sharding.shardRegionState(TYPE, java.time.Duration.ofSeconds(5)).toCompletableFuture()
          .get(10, TimeUnit.SECONDS).bufferedMessages();
    } catch (Exception e) {
      return 1;
    }
  }

  private static void report(String name, BitSet[] acked, int rounds, int markedAt, int unreachableAt) {
    long sentSinceMark = 0;
    long lostSinceMark = 0;
    long lostAfterDetection = 0;
    int firstSafeRound = unreachableAt < 0 ? Integer.MAX_VALUE : unreachableAt + DETECTION_MARGIN_ROUNDS + 1;
    List<String> examples = new ArrayList<>();
    synchronized (acked) {
      for (int e = 0; e < acked.length; e++) {
        for (int seq = markedAt + 1; seq <= rounds; seq++) {
          sentSinceMark++;
          if (!acked[e].get(seq)) {
            lostSinceMark++;
            if (seq >= firstSafeRound) {
              lostAfterDetection++;
              if (examples.size() < 5) {
                examples.add("entity-" + e + "#" + seq);
              }
            }
          }
        }
      }
    }
    NodeSupport.out("REPORT node=" + name + " rounds=" + rounds + " markedAt=" + markedAt
        + " unreachableAt=" + unreachableAt + " sentSinceMark=" + sentSinceMark + " lostSinceMark=" + lostSinceMark
        + " lostAfterDetection=" + lostAfterDetection + " examples=" + String.join(",", examples));
  }
}
