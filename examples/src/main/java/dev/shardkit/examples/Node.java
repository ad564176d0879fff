package dev.shardkit.examples;

import com.typesafe.config.Config;
import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;
import org.slf4j.LoggerFactory;

/**
 * One node of a cluster, one per process: start it in three terminals with three ports and you have
 * a three-node cluster that shares the {@link Account} entity type. Nodes with the role
 * {@value Account#ROLE} (the default) host accounts; a node started with other roles only routes
 * to them. The {@link Client} sends to the accounts from a process of its own.
 *
 * <p>Configured by {@code node.conf} (in the examples' resources) or the file {@code --config}
 * names; the port, seed nodes and roles can be overridden by flags or environment variables (see
 * {@link ExampleOptions}):
 *
 * <pre>{@code
 * mvn -q -pl examples -am compile exec:java -Dexec.mainClass=dev.shardkit.examples.Node -Dexec.args="--port 2551"
 * }</pre>
 *
 * <p>The node prints the cluster's members as they come and go, and the accounts that start and
 * stop on it. Ctrl-C (or SIGTERM) leaves the cluster gracefully: the node's shards are handed off
 * to the other nodes first.
 */
public final class Node {
  private static final String PROGRAM = "Node";

  private Node() {}

  public static void main(String[] args) {
    ActorSystem<ClusterEvent.MemberEvent> system;
    try {
      system = start(args, System.getenv());
    } catch (IllegalArgumentException e) {
      ExampleOptions.exitWithUsage(PROGRAM, ExampleOptions.NODE_OPTIONS, e.getMessage());
      return;
    }
    if (system == null) {
      return; // --help
    }
    // Runs until the node leaves the cluster: Ctrl-C, SIGTERM, or being downed by the others.
    system.getWhenTerminated().toCompletableFuture().join();
    print("stopped");
  }

  /**
   * Starts the node's actor system and the {@link Account} entity type; returns null after
   * printing the usage for {@code --help}.
   *
   * @throws IllegalArgumentException for a malformed flag, variable or configuration file
   */
  static ActorSystem<ClusterEvent.MemberEvent> start(String[] args, Map<String, String> environment) {
    ExampleOptions options = ExampleOptions.parse(PROGRAM, ExampleOptions.NODE_OPTIONS, args, environment);
    if (options.help()) {
      System.out.print(options.usage());
      return null;
    }
    Config config = options.config("");
    // Logging is ready before the actor system's threads start using it.
    LoggerFactory.getLogger(Node.class);
    ActorSystem<ClusterEvent.MemberEvent> system = ActorSystem.create(membersPrinter(),
        ExampleOptions.SYSTEM_NAME, config);
    Cluster cluster = Cluster.get(system);
    print("node " + cluster.selfMember().address() + " with roles " + roles(cluster.selfMember().getRoles())
        + ", state store " + config.getString("shardkit.sharding.state-store-mode")
        + "; joining " + config.getStringList("pekko.cluster.seed-nodes"));

    // The same call on every node. On a node with the role it hosts accounts; on any other node it
    // starts a proxy that routes to them.
    ClusterSharding.get(system).start(Entity.of(Account.TYPE, Account::create)
        .withRole(Account.ROLE)
        .withStopMessage(Account.Stop.INSTANCE));
    print(cluster.selfMember().getRoles().contains(Account.ROLE)
        ? "hosting entity type [" + Account.TYPE.name() + "]"
        : "not hosting [" + Account.TYPE.name() + "] (no role " + Account.ROLE + "): routing to the nodes that do");
    return system;
  }

  /** The root actor: prints every change of the cluster's membership. */
  private static Behavior<ClusterEvent.MemberEvent> membersPrinter() {
    return Behaviors.setup(ctx -> {
      Cluster.get(ctx.getSystem()).subscriptions().tell(Subscribe.create(ctx.getSelf(), ClusterEvent.MemberEvent.class));
      return Behaviors.receiveMessage(event -> {
        Member m = event.member();
        String what = event instanceof ClusterEvent.MemberJoined ? "joining"
            : event instanceof ClusterEvent.MemberUp ? "up"
            : event instanceof ClusterEvent.MemberLeft ? "leaving"
            : event instanceof ClusterEvent.MemberExited ? "exited"
            : event instanceof ClusterEvent.MemberRemoved ? "removed"
            : event instanceof ClusterEvent.MemberDowned ? "downed"
            : null;
        if (what != null) {
          boolean self = m.address().equals(Cluster.get(ctx.getSystem()).selfMember().address());
          print("member " + what + ": " + m.address() + " " + roles(m.getRoles()) + (self ? " (this node)" : ""));
        }
        return Behaviors.same();
      });
    });
  }

  /** The node's own roles, without the data-center role Pekko adds. */
  static String roles(java.util.Set<String> roles) {
    List<String> own = roles.stream().filter(r -> !r.startsWith("dc-")).sorted().toList();
    return own.stream().collect(Collectors.joining(",", "[", "]"));
  }

  /** Prints one line for the person watching the terminal. */
  static synchronized void print(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
