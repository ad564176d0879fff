package dev.shardkit.sharding.internal.coordinator;

import java.time.Duration;

/**
 * How long the coordinator waits before the shards of a region that terminated get new homes.
 *
 * <p>A region whose node was removed from the cluster (downed, then removed) may still be running
 * its entities as far as that node knows: a node on the other side of a partition goes on until
 * its own split-brain resolver downs it, and a node that was frozen goes on when it resumes until
 * it learns that it is out. Like Pekko's sharding and singletons, the coordinator gives that node
 * the downing provider's removal margin ({@code pekko.cluster.down-removal-margin}, by default the
 * split-brain resolver's {@code stable-after}) to stop them before it starts them elsewhere. A
 * region that stopped while its node is still a member (a graceful shutdown, or a node leaving
 * normally) has handed its shards off, and a region with no shards leaves nothing to protect:
 * neither waits.
 */
final class RemovalMargin {
  private RemovalMargin() {}

  /**
   * @param margin the downing provider's removal margin (zero: none)
   * @param nodeStillMember whether the region's node is still a member that is not down
   * @param shards how many shards the region hosted
   */
  static Duration before(Duration margin, boolean nodeStillMember, int shards) {
    return nodeStillMember || shards == 0 ? Duration.ZERO : margin;
  }
}
