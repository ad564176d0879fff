package dev.shardkit.sharding;

import java.util.Set;
import org.apache.pekko.actor.Address;

/**
 * One shard region as an allocation strategy sees it: where it runs, the roles of its node, and
 * the node's age. There is one region per entity type per node, so the address identifies it.
 *
 * @param address the node's address
 * @param roles the node's cluster roles
 * @param upNumber the node's age rank in the cluster: lower means older (it was moved to Up
 *     earlier); {@link Integer#MAX_VALUE} while the coordinator has not seen the node Up
 */
public record RegionInfo(Address address, Set<String> roles, int upNumber) {
  public RegionInfo {
    if (address == null) {
      throw new IllegalArgumentException("RegionInfo needs an address");
    }
    roles = Set.copyOf(roles);
  }

  /** True when this region's node joined the cluster before {@code other}'s. */
  public boolean isOlderThan(RegionInfo other) {
    return upNumber < other.upNumber
        || (upNumber == other.upNumber && address.toString().compareTo(other.address.toString()) < 0);
  }
}
