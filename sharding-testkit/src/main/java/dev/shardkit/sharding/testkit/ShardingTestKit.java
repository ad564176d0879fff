package dev.shardkit.sharding.testkit;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.internal.util.Arguments;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Sharding on a single node, for testing an application's entities: an actor system that is a
 * one-member cluster (Up by the time {@link #create} returns), with the in-memory coordinator state
 * store, so no store module and no disk are involved. Start the entity types under test with
 * {@link #sharding()}, send to them through {@code entityRefFor}, and make probes with
 * {@link #testKit()}. It is the first node of a {@link TestCluster}, with the same configuration:
 * in particular every message is serialized ({@code pekko.actor.serialize-messages = on}), as it
 * would be on its way to another node, so a message without a serializer fails here rather than
 * in production; bind your messages' serializer in the extra configuration.
 *
 * <pre>{@code
 * try (ShardingTestKit kit = ShardingTestKit.create()) {
 *   kit.sharding().start(Entity.of(Counter.KEY, ctx -> Counter.create(ctx.entityId())));
 *   EntityRef<Counter.Command> counter = kit.sharding().entityRefFor(Counter.KEY, "counter-1");
 *   ...
 * }
 * }</pre>
 *
 * <p>Not thread-safe; one per test or test class. {@link #close} stops the actor system.
 */
public final class ShardingTestKit implements AutoCloseable {
  /** The actor system's name when {@link #create(String, String)} is not given one. */
  public static final String DEFAULT_NAME = "ShardingTestKit";

  private final TestCluster cluster;
  private final ActorSystem<Void> system;
  private final ActorTestKit testKit;

  private ShardingTestKit(TestCluster cluster, ActorSystem<Void> system) {
    this.cluster = cluster;
    this.system = system;
    this.testKit = ActorTestKit.create(system);
  }

  /** A single node with {@link TestCluster#BASE_CONFIG}, named {@value #DEFAULT_NAME}. */
  public static ShardingTestKit create() {
    return create(DEFAULT_NAME, "");
  }

  /**
   * A single node with {@code extraConfig} (HOCON) in front of {@link TestCluster#BASE_CONFIG},
   * named {@value #DEFAULT_NAME}; for example your messages' serialization bindings, or
   * {@code shardkit.sharding} settings.
   *
   * @throws IllegalArgumentException if {@code extraConfig} is null
   */
  public static ShardingTestKit create(String extraConfig) {
    return create(DEFAULT_NAME, extraConfig);
  }

  /**
   * A single node named {@code name} with {@code extraConfig} (HOCON) in front of
   * {@link TestCluster#BASE_CONFIG}. Returns once the node is an Up member of its own cluster.
   *
   * @throws IllegalArgumentException if an argument is null, or {@code name} is not a valid actor
   *     system name (Pekko's message says why)
   * @throws AssertionError if the node is not Up within 30 seconds ({@link TestCluster#awaitUp})
   */
  public static ShardingTestKit create(String name, String extraConfig) {
    Arguments.requireNonNull(name, "ShardingTestKit.create", "name");
    Arguments.requireNonNull(extraConfig, "ShardingTestKit.create", "extraConfig", "pass \"\" for none");
    TestCluster cluster = new TestCluster(name);
    try {
      ActorSystem<Void> system = cluster.add(extraConfig);
      cluster.awaitUp(1);
      return new ShardingTestKit(cluster, system);
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** The node's actor system. */
  public ActorSystem<Void> system() {
    return system;
  }

  /** The node's {@link ClusterSharding}: start entity types and get {@code EntityRef}s here. */
  public ClusterSharding sharding() {
    return ClusterSharding.get(system);
  }

  /**
   * The node's remember-entities store ({@code remember-entities-store = test}), its own: other
   * test kits and clusters, in tests running in parallel, have theirs.
   */
  public TestRememberStore rememberStore() {
    return cluster.rememberStore();
  }

  /**
   * Pekko's typed {@link ActorTestKit} on the node's actor system: {@code createTestProbe()},
   * {@code spawn(...)}, and the other tools of {@code pekko-actor-testkit-typed}.
   */
  public ActorTestKit testKit() {
    return testKit;
  }

  /** Stops the actor system, and with it every entity and probe. */
  @Override
  public void close() {
    cluster.close();
  }
}
