package dev.shardkit.systemtest;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardingEnvelope;
import dev.shardkit.systemtest.WitnessedEntity.Tick;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;

/**
 * One node of {@link FreezeTest}, in its own JVM:
 *
 * <pre>
 * FreezeNode &lt;port&gt; &lt;seed port&gt; &lt;name&gt; &lt;nodes&gt; &lt;entities&gt; &lt;messages per second&gt;
 *            &lt;deadline seconds&gt; &lt;witness directory&gt; &lt;extra config&gt;
 * </pre>
 *
 * <p>Its entities ({@link WitnessedEntity}) and its sender record to the node's {@link Witness}
 * file. Output and commands:
 * <ul>
 *   <li>(none) → {@code FORMED port=… coordinator=… rank=…} once all nodes are Up and every region
 *       is registered; {@code rank} is the node's age among the members, 0 for the oldest;
 *   <li>{@code SAW event=unreachable|reachable|downed|removed port=…} for each cluster event about
 *       another node, also recorded by the witness;
 *   <li>{@code ADOPTED entity=…} when the first entity starts here after a node was removed: the
 *       removed node's shards have new homes;
 *   <li>{@code TRAFFIC} → {@code STARTED}: one numbered message to one entity after another, round
 *       after round, paced to the given rate; entities with an even index through
 *       {@code EntityRef}s (the caller-thread route), the others through the region with an
 *       envelope;
 *   <li>{@code STOP} → stops sending and waits (up to a minute) until its region holds no message
 *       (messages held for a downed node's shards wait for their new homes), then {@code STOPPED};
 *   <li>{@code REPORT} (once every node has stopped) → waits until nothing more is processed here,
 *       flushes the witness and prints {@code REPORT} with the node's own cluster status.
 * </ul>
 */
public final class FreezeNode {
  static final EntityTypeKey<Tick> TYPE = EntityTypeKey.create(Tick.class, "Witnessed");
  static final String SYSTEM_NAME = "FreezeTest";
  /** The sender sends a batch this often, so a rate of 1 000 a second is 5 messages a batch. */
  private static final int BATCH_EVERY_MS = 5;

  private FreezeNode() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 9) {
      System.err.println("usage: FreezeNode <port> <seedPort> <name> <nodes> <entities> <perSecond> <deadlineSeconds> "
          + "<witnessDir> <config>");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    List<Integer> seedPorts = Arrays.stream(args[1].split(",")).map(Integer::parseInt).toList();
    String name = args[2];
    int nodes = Integer.parseInt(args[3]);
    int entities = Integer.parseInt(args[4]);
    int perSecond = Integer.parseInt(args[5]);
    NodeSupport.startDeadline(name, Long.parseLong(args[6]));
    Witness witness = Witness.open(Path.of(args[7]).resolve(name + ".bin"));
    int self = nodeIndex(name);

    // The node's log (kept by the test in a file) says what sharding and the cluster did, and when;
    // this line ties its wall-clock times to the witness's clock.
    System.err.println("CLOCK nanoTime=" + System.nanoTime() + " epochMillis=" + System.currentTimeMillis());
    logAtInfo("dev.shardkit");
    logAtInfo("org.apache.pekko.cluster");
    logAtInfo("org.apache.pekko.remote");
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), SYSTEM_NAME,
        NodeSupport.config(SYSTEM_NAME, port, seedPorts, "pekko.loglevel = INFO\n" + args[8]));
    ClusterSharding sharding = ClusterSharding.get(system);
    AtomicBoolean sawRemoval = new AtomicBoolean();
    AtomicBoolean adopted = new AtomicBoolean();
    ActorRef<ShardingEnvelope<Tick>> region = sharding.start(Entity.of(TYPE, ctx -> {
      // The first entity to start here after a node was removed is one of that node's: its shard
      // has a new home here.
      if (sawRemoval.get() && adopted.compareAndSet(false, true)) {
        NodeSupport.out("ADOPTED node=" + name + " entity=" + ctx.entityId());
      }
      return WitnessedEntity.create(ctx.entityId(), witness);
    }));
    watchOthers(system, witness, sawRemoval);

    NodeSupport.awaitFormed(system, sharding, TYPE, nodes);
    NodeSupport.out("FORMED node=" + name + " port=" + port + " coordinator="
        + NodeSupport.runsCoordinator(system, TYPE) + " rank=" + ageRank(system));

    List<EntityRef<Tick>> refs = new ArrayList<>();
    for (int e = 0; e < entities; e++) {
      refs.add(sharding.entityRefFor(TYPE, WitnessedEntity.id(e)));
    }
    AtomicBoolean stop = new AtomicBoolean();
    Thread traffic = new Thread(() -> send(self, refs, region, witness, perSecond, stop), "traffic");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String command;
    while ((command = in.readLine()) != null) {
      switch (command.trim()) {
        case "TRAFFIC" -> {
          traffic.start();
          NodeSupport.out("STARTED node=" + name);
        }
        case "STOP" -> {
          stop.set(true);
          traffic.join();
          NodeSupport.out("STOPPED node=" + name + " held=" + awaitNothingHeld(sharding));
        }
        case "REPORT" -> {
          awaitQuiet(witness);
          witness.flush();
          NodeSupport.out("REPORT node=" + name + " processed=" + witness.processedCount() + " status="
              + status(system));
        }
        default -> System.err.println(name + ": unknown command [" + command + "]");
      }
    }
    Runtime.getRuntime().halt(0);
  }

  private static void logAtInfo(String logger) {
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(logger))
        .setLevel(ch.qos.logback.classic.Level.INFO);
  }

  /** node1 → 0, node2 → 1, … */
  static int nodeIndex(String name) {
    return Integer.parseInt(name.substring("node".length())) - 1;
  }

  private static void send(int self, List<EntityRef<Tick>> refs, ActorRef<ShardingEnvelope<Tick>> region,
      Witness witness, int perSecond, AtomicBoolean stop) {
    int perBatch = Math.max(1, perSecond * BATCH_EVERY_MS / 1000);
    long sent = 0;
    while (!stop.get()) {
      for (int i = 0; i < perBatch; i++, sent++) {
        int entity = (int) (sent % refs.size());
        int seq = (int) (sent / refs.size());
        witness.sent(entity, seq);
        Tick tick = new Tick(self, seq);
        if (entity % 2 == 0) {
          refs.get(entity).tell(tick);
        } else {
          region.tell(new ShardingEnvelope<>(WitnessedEntity.id(entity), tick));
        }
      }
      try {
        Thread.sleep(BATCH_EVERY_MS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static void watchOthers(ActorSystem<Void> system, Witness witness, AtomicBoolean sawRemoval) {
    system.systemActorOf(Behaviors.<ClusterEvent.ClusterDomainEvent>setup(ctx -> {
      Cluster.get(ctx.getSystem()).subscriptions().tell(Subscribe.create(ctx.getSelf(),
          ClusterEvent.ClusterDomainEvent.class));
      return Behaviors.receiveMessage(event -> {
        if (event instanceof ClusterEvent.UnreachableMember u) {
          saw(witness, Witness.SAW_UNREACHABLE, "unreachable", u.member());
        } else if (event instanceof ClusterEvent.ReachableMember r) {
          saw(witness, Witness.SAW_REACHABLE, "reachable", r.member());
        } else if (event instanceof ClusterEvent.MemberDowned d) {
          saw(witness, Witness.SAW_DOWNED, "downed", d.member());
        } else if (event instanceof ClusterEvent.MemberRemoved r) {
          saw(witness, Witness.SAW_REMOVED, "removed", r.member());
          sawRemoval.set(true);
        }
        return Behaviors.same();
      });
    }), "freeze-test-listener", Props.empty());
  }

  private static void saw(Witness witness, int event, String what, Member member) {
    int port = (Integer) member.address().port().get();
    witness.saw(event, port);
    NodeSupport.out("SAW event=" + what + " port=" + port);
  }

  /** 0 for the oldest Up member. */
  private static int ageRank(ActorSystem<Void> system) {
    Member self = Cluster.get(system).selfMember();
    int older = 0;
    for (Member m : Cluster.get(system).state().getMembers()) {
      if (m.status().equals(MemberStatus.up()) && m.isOlderThan(self)) {
        older++;
      }
    }
    return older;
  }

  private static String status(ActorSystem<Void> system) {
    if (system.whenTerminated().isCompleted()) {
      return "terminated";
    }
    return Cluster.get(system).selfMember().status().toString();
  }

  /** Waits until this node's region holds no message (at most 60 s); the messages it still holds. */
  private static int awaitNothingHeld(ClusterSharding sharding) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    int held = -1;
    while (System.nanoTime() < deadline) {
      try {
        held = sharding.shardRegionState(TYPE, java.time.Duration.ofSeconds(2)).toCompletableFuture()
            .get(5, TimeUnit.SECONDS).bufferedMessages();
      } catch (Exception e) {
        return 0; // The region has stopped: this node was downed, and what it held is gone with it.
      }
      if (held == 0) {
        return 0;
      }
      Thread.sleep(250);
    }
    return held;
  }

  /** Waits until this node's incarnations have processed nothing for 1.5 s (at most 30 s). */
  private static void awaitQuiet(Witness witness) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    long last = -1;
    int quietFor = 0;
    while (quietFor < 6 && System.nanoTime() < deadline) {
      long now = witness.processedCount();
      quietFor = now == last ? quietFor + 1 : 0;
      last = now;
      Thread.sleep(250);
    }
  }
}
