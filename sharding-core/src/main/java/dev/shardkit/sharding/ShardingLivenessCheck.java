package dev.shardkit.sharding;

import dev.shardkit.sharding.internal.util.Arguments;
import dev.shardkit.sharding.internal.health.Liveness;
import dev.shardkit.sharding.internal.health.VerdictLog;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.slf4j.LoggerFactory;

/**
 * A liveness check for Pekko Management's health checks (its {@code /alive} route, for a
 * Kubernetes liveness probe): whether this node's sharding is in a state from which only a restart
 * of the process brings it back. A failed liveness probe restarts the container, so the check is
 * conservative and answers {@code false} only when:
 * <ul>
 *   <li>the node is out of the cluster (downed, removed, or its cluster membership shut down) while
 *       its coordinated shutdown has not begun. A Pekko actor system cannot join a cluster again
 *       once removed, so its entities will never process anything again. (With Pekko's default
 *       {@code pekko.cluster.run-coordinated-shutdown-when-down = on} the shutdown begins at once
 *       and the check fails only for a moment; with it {@code off}, the node stays in this state
 *       until it is restarted.)
 *   <li>a region of an entity type started here stopped without being asked to (neither
 *       {@link ClusterSharding#gracefulShutdown} nor the node's coordinated shutdown asked it), while
 *       the node is not shutting down: that type cannot be started again on this node.
 * </ul>
 * Everything else answers {@code true}: a region still registering, a coordinator that moved or is
 * away, a delivery gate closed for a while (the node was paused, or is unreachable for others),
 * and a node whose coordinated shutdown has begun (it is handing off its shards on purpose; a
 * restart would cut that short). Those are for the {@link ShardingReadinessCheck}, or heal by
 * themselves. A node on which no entity type was started is alive.
 *
 * <p>The check reads what the regions publish and asks no actor, so it answers at once and has no
 * settings. Each change of its answer is logged (logger
 * {@code dev.shardkit.sharding.ShardingLivenessCheck}; a failure at WARN) with the reason.
 *
 * <p><b>Configuration.</b> Add Pekko Management to your application (shardkit does not depend on
 * it: {@code org.apache.pekko:pekko-management_2.13}), start it, and name this class among its
 * liveness checks:
 * <pre>{@code
 * pekko.management.health-checks.liveness-checks {
 *   shardkit-sharding = "dev.shardkit.sharding.ShardingLivenessCheck"
 * }
 * }</pre>
 * Pekko Management creates the check through its {@code ActorSystem} constructor; {@code /alive}
 * then answers 200 when every configured check passes, and 500 otherwise.
 *
 * <p>Thread-safe.
 */
public final class ShardingLivenessCheck implements Supplier<CompletionStage<Boolean>> {

  private final ClusterSharding sharding;
  private final VerdictLog verdicts = new VerdictLog(LoggerFactory.getLogger(ShardingLivenessCheck.class),
      "shardkit liveness check", true);

  /**
   * The check of {@code system}'s sharding. Pekko Management calls this constructor; you need not
   * call it yourself.
   *
   * @throws IllegalArgumentException if {@code system} is null or not clustered
   *     ({@code pekko.actor.provider = cluster})
   */
  public ShardingLivenessCheck(ActorSystem system) {
    Arguments.requireNonNull(system, "ShardingLivenessCheck", "system");
    this.sharding = ClusterSharding.get(Adapter.toTyped(system));
  }

  /**
   * Whether this node's sharding is alive now (see the class description). The stage is always
   * complete, never failed.
   */
  @Override
  public CompletionStage<Boolean> get() {
    return CompletableFuture.completedFuture(verdicts.report(Liveness.decide(sharding.nodeHealth())).ok());
  }
}
