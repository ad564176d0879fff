package dev.shardkit.systemtest;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.ClusterShardingStats;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardRegionState;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * One cluster node of {@link MultiProcessClusterTest}, run in its own JVM:
 *
 * <pre>
 * ClusterNode &lt;port&gt; &lt;seed ports, comma-separated&gt; &lt;node name&gt; &lt;nodes&gt; &lt;entities&gt;
 *             &lt;messages per entity&gt; &lt;deadline seconds&gt;
 * </pre>
 *
 * <p>It joins the cluster on 127.0.0.1, starts the {@code SeqCounter} entity type, and then obeys
 * commands on stdin, answering on stdout with one machine-readable line each:
 * <ul>
 *   <li>(no command) → {@code FORMED} once all nodes are Up and all regions registered;
 *   <li>{@code SEND} → sends {@code messages per entity} ticks to each entity through
 *       {@code EntityRef}s, then {@code SENT count=…};
 *   <li>{@code REPORT} → waits (bounded) until every entity exists in the cluster and those
 *       hosted here have received every node's ticks, then {@code RESULT …} and
 *       {@code ENTITIES id,id,…}.
 * </ul>
 * The node exits by itself when stdin closes or the deadline passes, so no process outlives the
 * test for long even if the test JVM dies.
 */
public final class ClusterNode {
  static final EntityTypeKey<SeqCounter.Command> TYPE =
      EntityTypeKey.create(SeqCounter.Command.class, "SeqCounter");
  static final String SYSTEM_NAME = "SystemTest";

  private static final Duration REPORT_TIMEOUT = Duration.ofSeconds(90);

  private ClusterNode() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 7) {
      System.err.println("usage: ClusterNode <port> <seedPorts> <name> <nodes> <entities> <messagesPerEntity> "
          + "<deadlineSeconds>");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    List<Integer> seedPorts = Arrays.stream(args[1].split(",")).map(Integer::parseInt).toList();
    String name = args[2];
    int nodes = Integer.parseInt(args[3]);
    int entities = Integer.parseInt(args[4]);
    int messagesPerEntity = Integer.parseInt(args[5]);
    long deadlineSeconds = Long.parseLong(args[6]);
    NodeSupport.startDeadline(name, deadlineSeconds);

    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), SYSTEM_NAME, NodeSupport.config(SYSTEM_NAME, port, seedPorts, ""));
    ClusterSharding sharding = ClusterSharding.get(system);
    sharding.start(Entity.of(TYPE, ctx -> SeqCounter.create(ctx.entityId())));

    NodeSupport.awaitFormed(system, sharding, TYPE, nodes);
    NodeSupport.out("FORMED node=" + name + " address=" + Cluster.get(system).selfMember().address());

    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String command;
    while ((command = in.readLine()) != null) {
      switch (command.trim()) {
        case "SEND" -> {
          int sent = 0;
          // Round-robin over the entities, so every entity sees this sender's ticks interleaved
          // with the other senders' and with its neighbours'.
          for (int seq = 0; seq < messagesPerEntity; seq++) {
            for (int e = 0; e < entities; e++) {
              sharding.entityRefFor(TYPE, entityId(e)).tell(new SeqCounter.Tick(name, seq));
              sent++;
            }
          }
          NodeSupport.out("SENT node=" + name + " count=" + sent);
        }
        case "REPORT" -> report(sharding, name, entities, nodes * messagesPerEntity);
        case "EXIT" -> {
          system.terminate();
          system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
          System.exit(0);
        }
        default -> System.err.println(name + ": unknown command [" + command + "]");
      }
    }
    // stdin closed: the test is gone.
    Runtime.getRuntime().halt(0);
  }

  static String entityId(int e) {
    return "entity-" + e;
  }

  /**
   * Prints the entities hosted here and what they received. Waits (bounded) until every entity
   * exists somewhere in the cluster and each one hosted here has heard every sender's last tick,
   * then lets a second pass pick up anything that was still on its way (a duplicate, say).
   */
  private static void report(ClusterSharding sharding, String name, int entities, int expectedPerEntity)
      throws Exception {
    long deadline = System.nanoTime() + REPORT_TIMEOUT.toNanos();
    boolean settled = false;
    while (true) {
      int clusterEntities;
      try {
        ClusterShardingStats stats = sharding.clusterShardingStats(TYPE, Duration.ofSeconds(5))
            .toCompletableFuture().get(15, TimeUnit.SECONDS);
        clusterEntities = stats.failedRegions().isEmpty()
            ? stats.regions().values().stream().flatMap(m -> m.values().stream()).mapToInt(Integer::intValue).sum()
            : -1;
      } catch (Exception e) {
        clusterEntities = -1;
      }
      ShardRegionState state = sharding.shardRegionState(TYPE, Duration.ofSeconds(10))
          .toCompletableFuture().get(30, TimeUnit.SECONDS);
      TreeSet<String> hosted = new TreeSet<>();
      state.shards().forEach(s -> hosted.addAll(s.entityIds()));
      List<CompletableFuture<SeqCounter.Stats>> asks = new ArrayList<>();
      for (String id : hosted) {
        asks.add(sharding.entityRefFor(TYPE, id)
            .<SeqCounter.Stats>ask(SeqCounter.GetStats::new, Duration.ofSeconds(10)).toCompletableFuture());
      }
      long received = 0;
      long outOfOrder = 0;
      long duplicates = 0;
      int complete = 0;
      int unanswered = 0;
      for (CompletableFuture<SeqCounter.Stats> ask : asks) {
        try {
          SeqCounter.Stats s = ask.get(20, TimeUnit.SECONDS);
          received += s.received();
          outOfOrder += s.outOfOrder();
          duplicates += s.duplicates();
          if (s.received() >= expectedPerEntity) {
            complete++;
          }
        } catch (Exception e) {
          unanswered++;
        }
      }
      boolean done = clusterEntities >= entities && complete == hosted.size() && unanswered == 0
          && state.bufferedMessages() == 0;
      boolean timedOut = System.nanoTime() > deadline;
      if ((done && settled) || timedOut) {
        NodeSupport.out("RESULT node=" + name + " received=" + received + " outOfOrder=" + outOfOrder
            + " duplicates=" + duplicates + " entitiesHostedHere=" + hosted.size()
            + " shardsHostedHere=" + state.shards().size() + " entitiesInCluster=" + clusterEntities
            + " unanswered=" + unanswered + " bufferedInRegion=" + state.bufferedMessages()
            + " droppedByRegion=" + state.droppedMessages() + " complete=" + done);
        NodeSupport.out("ENTITIES node=" + name + " ids=" + String.join(",", hosted));
        return;
      }
      settled = done;
      Thread.sleep(done ? 1000 : 500);
    }
  }
}
