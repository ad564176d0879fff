package dev.shardkit.sharding.testkit;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

import static dev.shardkit.sharding.internal.util.Arguments.requireNonNull;

/**
 * Several real actor systems in one JVM, on 127.0.0.1 with Artery remoting and
 * {@code serialize-messages = on}, joined into one cluster. The first system is the oldest.
 *
 * <p>For tests of what only a cluster shows: entities spread over nodes, a node leaving or
 * crashing, rebalancing, the coordinator moving. Every message between the systems really crosses
 * the network stack on loopback and is really serialized, and so is every message within one
 * system ({@code serialize-messages = on}), so a message type without a serializer fails the test.
 * Each system has {@link #BASE_CONFIG} under the configuration a test gives it.
 *
 * <pre>{@code
 * try (TestCluster cluster = new TestCluster("Counters").startNodes(3)) {
 *   for (ActorSystem<Void> node : cluster.systems()) {
 *     ClusterSharding.get(node).start(Entity.of(Counter.KEY, ctx -> Counter.create(ctx.entityId())));
 *   }
 *   ...
 * }
 * }</pre>
 *
 * <p>A system stopped with {@code terminate()} leaves the cluster gracefully (its shards are handed
 * off); to make it look crashed to the others, start it with
 * {@code pekko.coordinated-shutdown.run-by-actor-system-terminate = off}: then the split-brain
 * resolver downs it once the others have seen it unreachable for 5 seconds.
 *
 * <p>Not thread-safe: add and remove systems from the test's thread. {@link #close} stops every
 * system, youngest first.
 */
public final class TestCluster implements AutoCloseable {
  /**
   * The configuration of every system, under what {@link #add} is given: cluster provider,
   * Artery on a free port of 127.0.0.1, every message serialized ({@link CborSerializable} bound
   * to Jackson CBOR), the split-brain resolver (keep-majority, stable after 5 s), INFO logging
   * through SLF4J, no JVM exit on shutdown; shardkit's in-memory coordinator state store
   * ({@code state-store-mode = memory}; a test of another store sets its own mode), and
   * {@code remember-entities-store = test} available ({@link TestRememberStore}); every event
   * sharding reports is recorded ({@link TelemetryRecorder}).
   */
  public static final String BASE_CONFIG = """
      pekko {
        loglevel = INFO
        loggers = ["org.apache.pekko.event.slf4j.Slf4jLogger"]
        logging-filter = "org.apache.pekko.event.slf4j.Slf4jLoggingFilter"
        actor {
          provider = cluster
          serialize-messages = on
          serialization-bindings { "dev.shardkit.sharding.testkit.CborSerializable" = jackson-cbor }
        }
        remote.artery.canonical { hostname = 127.0.0.1, port = 0 }
        cluster {
          jmx.multi-mbeans-in-same-jvm = on
          downing-provider-class = "org.apache.pekko.cluster.sbr.SplitBrainResolverProvider"
          split-brain-resolver.stable-after = 5s
        }
        coordinated-shutdown.exit-jvm = off
        log-dead-letters = 100
        log-dead-letters-during-shutdown = off
      }
      # Store modules' tests choose their own mode; sharding-core has only the in-memory store.
      shardkit.sharding.state-store-mode = memory
      shardkit.sharding.remember-entities-store-providers.test = "dev.shardkit.sharding.testkit.TestRememberStore$Provider"
      # What sharding reports, for tests to wait on (TelemetryRecorder.of(system)).
      shardkit.sharding.telemetry.bindings = ["dev.shardkit.sharding.testkit.TelemetryRecorder"]
      """;

  private final String name;
  private final TestScope scope;
  private final List<ActorSystem<Void>> systems = new ArrayList<>();

  /**
   * A cluster with no systems yet; {@link #add} or {@link #startNodes} starts them. It has a
   * {@link TestRememberStore} and {@link TestLease}s of its own.
   *
   * @param name the name of every system (Pekko's cluster members share their system's name)
   * @throws IllegalArgumentException if {@code name} is null
   */
  public TestCluster(String name) {
    this(name, TestScope.create());
  }

  /**
   * A cluster that takes over what an earlier one kept outside its systems, its
   * {@link #rememberStore()} and its leases: to restart a whole cluster, as real nodes find their
   * database again when they start. Close {@code predecessor} first.
   *
   * @throws IllegalArgumentException if an argument is null
   */
  public TestCluster(String name, TestCluster predecessor) {
    this(name, requireNonNull(predecessor, "TestCluster", "predecessor").scope);
  }

  private TestCluster(String name, TestScope scope) {
    this.name = requireNonNull(name, "TestCluster", "name");
    this.scope = scope;
  }

  private static void requireRoles(String[] roles, String method) {
    requireNonNull(roles, method, "roles");
    for (String role : roles) {
      requireNonNull(role, method, "roles", "a role is null");
    }
  }

  /**
   * This cluster's remember-entities store ({@code remember-entities-store = test}), shared by its
   * systems.
   */
  public TestRememberStore rememberStore() {
    return scope.rememberStore();
  }

  /**
   * The control of this cluster's {@link TestLease} whose name contains {@code namePart}, once some
   * node asked for it.
   *
   * @throws IllegalStateException unless exactly one lease asked for so far matches
   */
  public TestLeaseControl lease(String namePart) {
    requireNonNull(namePart, "TestCluster.lease", "namePart");
    var matching = scope.leases().values().stream().filter(c -> c.name().contains(namePart)).toList();
    if (matching.size() != 1) {
      throw new IllegalStateException("Expected one test lease named like [" + namePart + "], found "
          + matching.stream().map(TestLeaseControl::name).toList());
    }
    return matching.get(0);
  }

  /** Whether a node of this cluster asked for a lease whose name contains {@code namePart}. */
  public boolean hasLease(String namePart) {
    requireNonNull(namePart, "TestCluster.hasLease", "namePart");
    return scope.leases().keySet().stream().anyMatch(n -> n.contains(namePart));
  }

  /**
   * Starts a system with extra config and the given roles, and joins it to the first (the first
   * joins itself). Returns at once; {@link #awaitUp} waits until it is a member.
   *
   * @param extraConfig HOCON in front of {@link #BASE_CONFIG}, "" for none
   * @param roles the node's cluster roles ({@code pekko.cluster.roles})
   */
  public ActorSystem<Void> add(String extraConfig, String... roles) {
    requireNonNull(extraConfig, "TestCluster.add", "extraConfig", "pass \"\" for none");
    requireRoles(roles, "TestCluster.add");
    StringBuilder rolesConf = new StringBuilder("pekko.cluster.roles = [");
    for (int i = 0; i < roles.length; i++) {
      rolesConf.append(i == 0 ? "" : ",").append('"').append(roles[i]).append('"');
    }
    rolesConf.append("]\n");
    rolesConf.append(TestScope.CONFIG_KEY).append(" = \"").append(scope.id()).append("\"\n");
    Config config = ConfigFactory.parseString(extraConfig + "\n" + rolesConf)
        .withFallback(ConfigFactory.parseString(BASE_CONFIG))
        .withFallback(ConfigFactory.load());
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), name, config);
    Address seed = systems.isEmpty() ? Cluster.get(system).selfMember().address()
        : Cluster.get(systems.get(0)).selfMember().address();
    systems.add(system);
    Cluster.get(system).manager().tell(new Join(seed));
    return system;
  }

  /** Starts a system with the given roles and no extra config; see {@link #add}. */
  public ActorSystem<Void> addWithRoles(String... roles) {
    requireRoles(roles, "TestCluster.addWithRoles");
    return add("", roles);
  }

  /** Starts {@code n} systems one after another, each Up before the next starts (so age = index). */
  public TestCluster startNodes(int n, String... roles) {
    requireRoles(roles, "TestCluster.startNodes");
    for (int i = 0; i < n; i++) {
      addWithRoles(roles);
      awaitUp(systems.size());
    }
    return this;
  }

  /** The {@code i}-th running system, from 0 (the oldest), in the order they were added. */
  public ActorSystem<Void> system(int i) {
    return systems.get(i);
  }

  /** The running systems, oldest first. */
  public List<ActorSystem<Void>> systems() {
    return List.copyOf(systems);
  }

  /** The cluster address of the {@code i}-th system. */
  public Address address(int i) {
    return Cluster.get(systems.get(i)).selfMember().address();
  }

  /**
   * Makes {@code node} leave the cluster gracefully, waits until it has left, and forgets it, so
   * that {@link #awaitUp} asks only the systems that are still running. It has left once its
   * shards were handed off and the cluster removed it: its own cluster extension has shut down
   * and no system still running counts it as a member (or its system has stopped already). Its
   * system then terminates by itself; this does not wait for that, since Pekko 1.7's remoting
   * can take long to shut a stream down at termination (apache/pekko#3247; a TLS stream did it
   * here for over a minute), which says nothing about the cluster.
   *
   * @throws AssertionError if it has not left within 60 seconds
   */
  public void leave(ActorSystem<?> node) {
    requireNonNull(node, "TestCluster.leave", "node");
    Address address = Cluster.get(node).selfMember().address();
    Cluster.get(node).manager().tell(new org.apache.pekko.cluster.typed.Leave(address));
    await(Duration.ofSeconds(60), () -> node.getWhenTerminated().toCompletableFuture().isDone()
        || Cluster.get(node).isTerminated() && systems.stream().noneMatch(s -> s != node && countsAsMember(s, address)),
        "the leaving node has left the cluster");
    // By identity: typed actor systems of one cluster share a name, and compare equal by it.
    systems.removeIf(s -> s == node);
  }

  private static boolean countsAsMember(ActorSystem<?> system, Address address) {
    if (system.getWhenTerminated().toCompletableFuture().isDone()) {
      return false;
    }
    for (org.apache.pekko.cluster.Member m : Cluster.get(system).state().getMembers()) {
      if (m.address().equals(address)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Waits until every system sees {@code count} members Up.
   *
   * @throws AssertionError after 30 seconds, with each system's view of the members
   */
  public void awaitUp(int count) {
    try {
      await(Duration.ofSeconds(30), () -> systems.stream().allMatch(s -> upCount(s) == count),
          "all systems see " + count + " members Up");
    } catch (AssertionError e) {
      StringBuilder views = new StringBuilder();
      for (ActorSystem<Void> s : systems) {
        views.append("\n  ").append(Cluster.get(s).selfMember().address()).append(" sees ")
            .append(Cluster.get(s).state().getMembers()).append(", unreachable ")
            .append(Cluster.get(s).state().getUnreachable());
      }
      throw new AssertionError(e.getMessage() + "; the views:" + views, e);
    }
  }

  private static int upCount(ActorSystem<?> s) {
    int up = 0;
    for (var m : Cluster.get(s).state().getMembers()) {
      if (m.status() == MemberStatus.up()) {
        up++;
      }
    }
    return up;
  }

  /** True if the coordinator singleton of the entity type runs in node {@code i}. */
  public boolean coordinatorRunsOn(int i, String typeName) {
    requireNonNull(typeName, "TestCluster.coordinatorRunsOn", "typeName");
    return coordinatorRunsIn(systems.get(i), typeName);
  }

  /** True if the coordinator singleton of the entity type runs in this system. */
  public static boolean coordinatorRunsIn(ActorSystem<?> system, String typeName) {
    requireNonNull(system, "TestCluster.coordinatorRunsIn", "system");
    requireNonNull(typeName, "TestCluster.coordinatorRunsIn", "typeName");
    return resolves(system, "/system/shardkit-coordinator-" + typeName + "/singleton");
  }

  /** True if an actor at {@code path} (wildcards allowed) in this system answers within a few seconds. */
  public static boolean resolves(ActorSystem<?> system, String path) {
    requireNonNull(system, "TestCluster.resolves", "system");
    requireNonNull(path, "TestCluster.resolves", "path");
    try {
      org.apache.pekko.actor.typed.javadsl.Adapter.toClassic(system).actorSelection(path)
          .resolveOne(Duration.ofSeconds(3)).toCompletableFuture().get(5, TimeUnit.SECONDS);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  /**
   * Polls a condition every 50 ms until it holds, or fails with {@code what}.
   *
   * @param what the condition in words, for the failure's message ("... waiting until what")
   * @throws AssertionError if the condition does not hold within {@code max}
   */
  public static void await(Duration max, BooleanSupplier condition, String what) {
    requireNonNull(max, "TestCluster.await", "max");
    requireNonNull(condition, "TestCluster.await", "condition");
    requireNonNull(what, "TestCluster.await", "what");
    long deadline = System.nanoTime() + max.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out after " + max + " waiting until " + what);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting until " + what);
      }
    }
  }

  /**
   * Stops the systems one at a time, youngest first: a node leaving while the others still run
   * gets its exit confirmed at once, where stopping them all together makes each wait for Pekko's
   * cluster-exiting timeout.
   */
  @Override
  public void close() {
    for (int i = systems.size() - 1; i >= 0; i--) {
      ActorSystem<Void> s = systems.get(i);
      s.terminate();
      try {
        s.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        // A system that does not stop in time must not hide the test's own result.
      }
    }
    systems.clear();
  }
}
