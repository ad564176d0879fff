package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * An {@link EntityRef}: the entity's shard is computed once, the route per message. Asks (its own
 * and Pekko's) come from {@link AbstractEntityRef} and send with {@link #tell}.
 */
@InternalApi
public final class EntityRefImpl<M> extends AbstractEntityRef<M> {
  private final EntityTypeKey<M> typeKey;
  private final String entityId;
  private final String shardId;
  private final RegionHandle handle;
  /**
   * The home found by the last tell, to skip the lookup while the table is the same. Written by
   * whichever thread tells last: an immutable record, so a racing reader sees a whole one, and any
   * one is checked against the table published now before it is used.
   */
  private RegionHandle.KnownHome lastHome;

  public EntityRefImpl(EntityTypeKey<M> typeKey, String entityId, String shardId, RegionHandle handle,
      ActorSystem<?> system) {
    super(system);
    this.typeKey = typeKey;
    this.entityId = entityId;
    this.shardId = shardId;
    this.handle = handle;
  }

  @Override
  public EntityTypeKey<M> typeKey() {
    return typeKey;
  }

  @Override
  public String entityId() {
    return entityId;
  }

  @Override
  public void tell(M message) {
    lastHome = handle.deliver(envelope(message), lastHome);
  }

  /** The region's entrance, which terminates with the region: after that an ask fails at once. */
  @Override
  protected ActorRef<?> terminatesWith() {
    return handle.entrance();
  }

  private Deliver envelope(M message) {
    if (message == null) {
      throw nullArgument("tell", "message");
    }
    return new Deliver(typeKey.name(), shardId, entityId, message);
  }

  /** Names the entity; Pekko's ask timeouts quote it. */
  @Override
  public String toString() {
    return "EntityRef(" + typeKey.name() + ", " + entityId + ")";
  }
}
