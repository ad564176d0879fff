package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.EntityContext;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardCommand;
import java.util.List;
import java.util.function.Function;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.PoisonPill;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;

/**
 * Creates and stops the incarnations of a shard's entities, as children of the shard, and tells
 * whether the node's delivery gate lets them start. A behavior factory that throws (or returns
 * null) never takes the shard down: it is logged, and the messages meant for the incarnation go to
 * dead letters through the {@link DropReporter}. Owned by the shard actor; not thread-safe.
 */
final class EntityIncarnations {
  /** The node's delivery gate opened (or never was really closed): waiting entities may start. Local only. */
  enum GateOpened implements NoSerializationVerificationNeeded { INSTANCE }

  private final ActorContext<Object> ctx;
  private final EntityTypeKey<Object> typeKey;
  private final String shardId;
  private final Function<EntityContext<Object>, Behavior<Object>> createBehavior;
  private final Object stopMessage;
  /** The type's props with the gated mailbox in front: Pekko takes the first mailbox it finds. */
  private final Props entityProps;
  private final DropReporter drops;
  private final org.apache.pekko.actor.typed.ActorRef<ShardCommand> shard;
  /** Entities start only while it is open; their mailboxes hold their messages while it is closed. */
  private final DeliveryGate gate;
  private final DeliveryGate.Parked gateWaker;
  /** Set while the shard is parked on the closed gate, so that it parks once. */
  private boolean parkedOnGate;

  EntityIncarnations(ActorContext<Object> ctx, RegionSpec spec, String shardId, DropReporter drops) {
    this.ctx = ctx;
    this.typeKey = spec.typeKey();
    this.shardId = shardId;
    this.createBehavior = spec.createBehavior().orElseThrow();
    // Without a stop message of the entity's own, a PoisonPill: it waits in the mailbox like any
    // message, and needs no wrapper around every entity's behavior (memory per entity, a call per
    // message).
    this.stopMessage = spec.stopMessage().orElse(PoisonPill.getInstance());
    // The gated mailbox is put first whatever the type's props say, so that no props can take an
    // entity out from under the delivery gate (Entity.withEntityProps refuses a mailbox anyway).
    this.entityProps = spec.entityProps().withMailboxFromConfig(GatedMailbox.CONFIG_PATH);
    this.drops = drops;
    this.shard = ctx.getSelf().narrow();
    this.gate = NodeGate.get(ctx.getSystem()).gate();
    org.apache.pekko.actor.typed.ActorRef<Object> self = ctx.getSelf();
    this.gateWaker = () -> self.tell(GateOpened.INSTANCE);
  }

  /**
   * Whether an incarnation may start now. The node may have been downed while it was not looking,
   * and its entities started elsewhere: they start here only once its delivery gate has opened.
   */
  boolean mayStart() {
    return gate.isOpen();
  }

  /** The shard hears {@link GateOpened} once the gate opens (once, however many entities wait). */
  void awaitGate() {
    if (!parkedOnGate) {
      parkedOnGate = true;
      if (!gate.park(gateWaker)) {
        gateWaker.wake();
      }
    }
  }

  /** The shard heard {@link GateOpened}: a closed gate is to be awaited anew. */
  void gateOpened() {
    parkedOnGate = false;
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
        ctx.spawn(behavior, EntityTable.actorName(entityId), entityProps);
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
