package dev.shardkit.sharding.internal;

import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.ShardAllocationStrategy;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.coordinator.CoordinatorSpec;
import dev.shardkit.sharding.internal.coordinator.ManualStateStore;
import dev.shardkit.sharding.internal.coordinator.ShardCoordinator;
import dev.shardkit.sharding.internal.membership.MemberSnapshot.Node;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.cluster.MemberStatus;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * References to regions on other test nodes, for the coordinator's units that compare and group
 * them by node: resolved from their paths, nothing is ever sent to them. Registered as a JUnit
 * extension, it runs one actor system (that can resolve remote references) for a test class.
 */
public final class TestRefs implements BeforeAllCallback, AfterAllCallback {
  private ActorTestKit testKit;

  @Override
  public void beforeAll(ExtensionContext context) {
    testKit = ActorTestKit.create(ConfigFactory.parseString(
        "pekko.actor.provider = cluster\npekko.remote.artery.canonical.port = 0")
        .withFallback(ConfigFactory.load()));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    testKit.shutdownTestKit();
  }

  /** The test kit of the actor system, for tests that also run actors. */
  public ActorTestKit testKit() {
    return testKit;
  }

  /**
   * A coordinator of {@code typeName} on {@code store} that places {@code knownShards} up front,
   * with settings that {@code tune} makes of these: it settles at once and rebalances only when
   * the test says so.
   */
  public ActorRef<Object> coordinator(String typeName, CoordinatorStateStore store, ShardAllocationStrategy strategy,
      int knownShards, UnaryOperator<ShardingSettings> tune) {
    ShardingSettings settings = ShardingSettings.create(testKit.system()).withCoordinatorSettleTimeout(Duration.ZERO)
        .withRebalanceInterval(Duration.ofHours(1));
    return testKit.spawn(ShardCoordinator.create(new CoordinatorSpec(typeName, tune.apply(settings), strategy, store,
        Optional.empty(), knownShards)));
  }

  /** A region (a probe) that has registered with {@code coordinator}, its registration stored. */
  public TestProbe<Object> registeredRegion(ActorRef<Object> coordinator, ManualStateStore store) throws Exception {
    TestProbe<Object> region = testKit.createTestProbe(Object.class);
    coordinator.tell(new ShardingProtocol.Register(region.ref(), Set.of()));
    store.next().done().complete(null);
    region.expectMessageClass(ShardingProtocol.RegisterAck.class);
    return region;
  }

  /** The region of the test node with this number. */
  public ActorRef<Object> region(int n) {
    return ActorRefResolver.get(testKit.system()).resolveActorRef(node(n) + "/system/shardkit-region-Test");
  }

  /** The proxy of the test node with this number. */
  public ActorRef<Object> proxy(int n) {
    return ActorRefResolver.get(testKit.system()).resolveActorRef(node(n) + "/system/shardkit-proxy-Test");
  }

  /** A reference on this node (it has no host in its address). */
  public ActorRef<Object> local() {
    return testKit.createTestProbe(Object.class).ref();
  }

  /** The address of the test node with this number. */
  public static Address node(int n) {
    return new Address("pekko", "Test", "127.0.0.1", 25500 + n);
  }

  /** The test node with this number as a member with this status and roles. */
  public static Node member(int n, MemberStatus status, String... roles) {
    return new Node(node(n), status, Set.of(roles));
  }

  /** {@code state} after {@code events}, in order. */
  public static CoordinatorState applied(CoordinatorState state, List<CoordinatorEvent> events) {
    for (CoordinatorEvent e : events) {
      state = state.applied(e);
    }
    return state;
  }
}
