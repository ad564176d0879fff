package dev.shardkit.sharding.internal.membership;

import dev.shardkit.sharding.internal.InternalApi;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The cluster node an actor lives on, as the cluster names it. The coordinator and
 * the sharding statistics both key regions by their node.
 */
@InternalApi
public final class NodeAddress {
  private NodeAddress() {}

  /**
   * The node of {@code ref}: a remote reference's address; a local reference's address has no host,
   * so it is {@code self}.
   *
   * @param self this node's address
   */
  public static Address of(ActorRef<?> ref, Address self) {
    Address address = ref.path().address();
    return address.hasGlobalScope() ? address : self;
  }
}
