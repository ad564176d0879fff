package dev.shardkit.sharding;

import dev.shardkit.sharding.internal.util.Arguments;
import dev.shardkit.sharding.internal.health.Readiness;
import dev.shardkit.sharding.internal.health.ReadinessWindow;
import dev.shardkit.sharding.internal.health.VerdictLog;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.MemberStatus;
import org.slf4j.LoggerFactory;

/**
 * A readiness check for Pekko Management's health checks (its {@code /ready} route, for a
 * Kubernetes readiness probe): whether this node's sharding can serve.
 *
 * <p>It answers {@code true} when all of these hold:
 * <ul>
 *   <li>the node's coordinated shutdown has not begun: from the moment it begins (the node leaves,
 *       is downed, or the actor system terminates) the answer is {@code false}, also on a node that
 *       was ready before;
 *   <li>the node is a member of the cluster: not downed or removed;
 *   <li>no region of an entity type started here was asked to shut down or has stopped;
 *   <li>during the start-up window (below): every entity type started on this node, with
 *       {@link ClusterSharding#start} or {@link ClusterSharding#startProxy}, has a region registered
 *       with the type's coordinator (a coordinator acknowledged the region at that coordinator's
 *       term, and the region has not seen it go away since; a coordinator that starts again
 *       announces its new term, which the region takes), and the node's delivery gate is open.
 *       Proxies count: they register with the coordinator too, and ask it for the homes of shards.
 * </ul>
 * A node on which no entity type was started is ready (until its shutdown begins), as Pekko's own
 * sharding check is with no names configured.
 *
 * <p><b>The start-up window.</b> Registration and the gate count until the check first finds the
 * node's member Up, and for {@code shardkit.sharding.health-check.readiness.disabled-after}
 * (default 30 s) after that; {@code off} keeps them counting for ever. After the window a region
 * registering again (its coordinator moved) or a gate closed for a moment no longer makes the node
 * unready: regions keep routing to the homes they know meanwhile, and a coordinator move, or a
 * partition that closes every node's gate at once, would otherwise take every node out of service
 * together. The window starts when the node is Up, not when it is first ready, so that a node
 * whose type cannot register yet (a type added in a rolling update, whose coordinator must run on
 * the oldest node, still on the previous version) becomes ready after the window and does not
 * stall the update. Shutdown, membership and stopped regions count whatever the window.
 *
 * <p>The check reads what the regions publish; it asks no actor, so it answers at once and has no
 * timeout of its own. Each change of its answer is logged (logger
 * {@code dev.shardkit.sharding.ShardingReadinessCheck}, INFO) with the reason: which types have not
 * registered, the gate, the shutdown.
 *
 * <p><b>Configuration.</b> Add Pekko Management to your application (shardkit does not depend on
 * it: {@code org.apache.pekko:pekko-management_2.13}), start it ({@code PekkoManagement.get(system).start()}),
 * and name this class among its readiness checks:
 * <pre>{@code
 * pekko.management.health-checks.readiness-checks {
 *   shardkit-sharding = "dev.shardkit.sharding.ShardingReadinessCheck"
 * }
 * }</pre>
 * Pekko Management creates the check through its {@code ActorSystem} constructor; {@code /ready}
 * then answers 200 when every configured check passes, and 500 otherwise.
 *
 * <p>Thread-safe.
 */
public final class ShardingReadinessCheck implements Supplier<CompletionStage<Boolean>> {

  private final ClusterSharding sharding;
  private final Cluster cluster;
  private final ReadinessWindow window;
  private final VerdictLog verdicts = new VerdictLog(LoggerFactory.getLogger(ShardingReadinessCheck.class),
      "shardkit readiness check", false);

  /**
   * The check of {@code system}'s sharding, with the start-up window of its configuration. Pekko
   * Management calls this constructor; you need not call it yourself.
   *
   * @throws IllegalArgumentException if {@code system} is null or not clustered
   *     ({@code pekko.actor.provider = cluster}), or
   *     {@code shardkit.sharding.health-check.readiness.disabled-after} is neither {@code off} nor a
   *     duration of at least 0 (the message names the key)
   */
  public ShardingReadinessCheck(ActorSystem system) {
    Arguments.requireNonNull(system, "ShardingReadinessCheck", "system");
    // The setting first: a bad value is refused before the check touches the cluster.
    this.window = ReadinessWindow.fromConfig(system.settings().config().getConfig("shardkit.sharding"),
        System::nanoTime);
    this.sharding = ClusterSharding.get(Adapter.toTyped(system));
    this.cluster = Cluster.get(system);
  }

  /**
   * Whether this node's sharding is ready now (see the class description). The stage is always
   * complete, never failed.
   */
  @Override
  public CompletionStage<Boolean> get() {
    boolean up = cluster.selfMember().status() == MemberStatus.up();
    boolean ready = verdicts.report(Readiness.decide(sharding.nodeHealth(), window.registrationChecked(up))).ok();
    return CompletableFuture.completedFuture(ready);
  }
}
