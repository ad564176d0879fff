package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.internal.ShardingProtocol.Deliver;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/** An {@link EntityRef}: the entity's shard is computed once, the route per message. */
final class EntityRefImpl<M> implements EntityRef<M> {
  private final EntityTypeKey<M> typeKey;
  private final String entityId;
  private final String shardId;
  private final RegionHandle handle;
  private final Scheduler scheduler;
  /**
   * The home found by the last tell, to skip the lookup while the table is the same. Written by
   * whichever thread tells last: an immutable record, so a racing reader sees a whole one, and any
   * one is checked against the table published now before it is used.
   */
  private RegionHandle.KnownHome lastHome;

  public EntityRefImpl(EntityTypeKey<M> typeKey, String entityId, String shardId, RegionHandle handle,
      Scheduler scheduler) {
    this.typeKey = typeKey;
    this.entityId = entityId;
    this.shardId = shardId;
    this.handle = handle;
    this.scheduler = scheduler;
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

  @Override
  public <R> CompletionStage<R> ask(Function<ActorRef<R>, M> messageFactory, Duration timeout) {
    if (messageFactory == null) {
      throw new IllegalArgumentException("ask to entity [" + entityId + "] of type [" + typeKey.name()
          + "] needs a message factory, got null");
    }
    // The entrance routes the message when AskPattern sends it, by the same handle as tell: straight
    // to a known home, in order with this caller's tells before and after it.
    return AskPattern.<Object, R>ask(handle.entrance(), replyTo -> envelope(messageFactory.apply(replyTo)), timeout,
        scheduler);
  }

  private Deliver envelope(M message) {
    if (message == null) {
      throw new IllegalArgumentException("Cannot send null to entity [" + entityId + "] of type [" + typeKey.name() + "]");
    }
    return new Deliver(typeKey.name(), shardId, entityId, message);
  }

  @Override
  public String toString() {
    return "EntityRef(" + typeKey.name() + ", " + entityId + ")";
  }
}
