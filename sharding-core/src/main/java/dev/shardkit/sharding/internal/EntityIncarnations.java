package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.EntityContext;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardCommand;
import java.util.List;
import java.util.function.Function;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.PoisonPill;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.MailboxSelector;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;

/**
 * Creates and stops the incarnations of a shard's entities, as children of the shard. A behavior
 * factory that throws (or returns null) never takes the shard down: it is logged, and the messages
 * meant for the incarnation go to dead letters through the {@link DropReporter}. Owned by the
 * shard actor; not thread-safe.
 */
final class EntityIncarnations {
  private static final Props ENTITY_MAILBOX = MailboxSelector.fromConfig(GatedMailbox.CONFIG_PATH);

  private final ActorContext<Object> ctx;
  private final EntityTypeKey<Object> typeKey;
  private final String shardId;
  private final Function<EntityContext<Object>, Behavior<Object>> createBehavior;
  private final Object stopMessage;
  private final DropReporter drops;
  private final org.apache.pekko.actor.typed.ActorRef<ShardCommand> shard;

  EntityIncarnations(ActorContext<Object> ctx, RegionSpec spec, String shardId, DropReporter drops) {
    this.ctx = ctx;
    this.typeKey = spec.typeKey();
    this.shardId = shardId;
    this.createBehavior = spec.createBehavior().orElseThrow();
    // Without a stop message of the entity's own, a PoisonPill: it waits in the mailbox like any
    // message, and needs no wrapper around every entity's behavior (memory per entity, a call per
    // message).
    this.stopMessage = spec.stopMessage().orElse(PoisonPill.getInstance());
    this.drops = drops;
    this.shard = ctx.getSelf().narrow();
  }

  /**
   * Spawns and watches an incarnation and gives it {@code messages}, in order.
   *
   * @return its ref, or null if its behavior could not be created (the messages are dropped)
   */
  ActorRef start(String entityId, List<Object> messages) {
    Behavior<Object> behavior;
    try {
      behavior = createBehavior.apply(new EntityContext<>(typeKey, entityId, shard));
      if (behavior == null) {
        throw new IllegalStateException("the behavior factory returned null");
      }
    } catch (RuntimeException e) {
      ctx.getLog().error("Entity type [{}]: creating entity [{}] in shard [{}] failed", typeKey.name(),
          entityId, shardId, e);
      messages.forEach(m -> drops.dropped(m, "entity [" + entityId + "] could not be created: " + e,
          Adapter.toClassic(ctx.getSelf())));
      return null;
    }
    // A plain watch: the shard's table finds the id from the ref's name, so nothing is kept per entity.
    org.apache.pekko.actor.typed.ActorRef<Object> spawned =
        ctx.spawn(behavior, EntityTable.actorName(entityId), ENTITY_MAILBOX);
    ctx.watch(spawned);
    ActorRef ref = Adapter.toClassic(spawned);
    messages.forEach(m -> ref.tell(m, ActorRef.noSender()));
    return ref;
  }

  /** Stops an incarnation after what is already in its mailbox. */
  void stop(ActorRef entity) {
    entity.tell(stopMessage, ActorRef.noSender());
  }
}
