package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.EntityContext;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.Passivate;
import dev.shardkit.sharding.ShardCommand;
import dev.shardkit.sharding.internal.ShardingProtocol.Deliver;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.PoisonPill;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * One shard: creates its entities on their first message, delivers to them, and passivates them
 * without losing what arrives meanwhile. A thin shell around {@link EntityTable}.
 */
public final class Shard extends AbstractBehavior<Object> {

  /** Ask for the shard's live entity ids; answered with {@link ShardSnapshot}. Local only. */
  public record GetShardState(ActorRef<Object> replyTo) implements NoSerializationVerificationNeeded {}

  /** A shard's live entities. Local only. */
  public record ShardSnapshot(String shardId, Set<String> entityIds) implements NoSerializationVerificationNeeded {}

  /**
   * Region → shard: nothing more will be routed here; stop every entity (each after what is
   * already in its mailbox) and then stop. Messages held for an entity that was passivating are
   * still delivered here, to one more incarnation that is stopped right after them, because they
   * were sent before the move and must be processed before anything sent after it. Local only.
   */
  public enum HandOff implements NoSerializationVerificationNeeded { INSTANCE }

  /**
   * Region → shard: the coordinator gave the hand-off up (it timed out); keep running. Entities
   * already told to stop still stop and come back with their next message. Local only.
   */
  public enum CancelHandOff implements NoSerializationVerificationNeeded { INSTANCE }

  private final EntityTypeKey<Object> typeKey;
  private final String shardId;
  private final Function<EntityContext<Object>, Behavior<Object>> createBehavior;
  private final Optional<Object> stopMessage;
  private final EntityTable entities;
  private final DropReporter drops;
  private final ActorRef<ShardCommand> selfAsShard;
  /** Set while handing off: every entity is stopped, and the shard stops when none is left. */
  private boolean handingOff;

  private Shard(ActorContext<Object> context, EntityTypeKey<Object> typeKey, String shardId,
      Function<EntityContext<Object>, Behavior<Object>> createBehavior, Optional<Object> stopMessage,
      int bufferSize, DropReporter drops) {
    super(context);
    this.typeKey = typeKey;
    this.shardId = shardId;
    this.createBehavior = createBehavior;
    this.stopMessage = stopMessage;
    this.entities = new EntityTable(bufferSize);
    this.drops = drops;
    this.selfAsShard = context.getSelf().narrow();
  }

  public static Behavior<Object> create(EntityTypeKey<Object> typeKey, String shardId,
      Function<EntityContext<Object>, Behavior<Object>> createBehavior, Optional<Object> stopMessage,
      int bufferSize, DropReporter drops) {
    return Behaviors.setup(ctx -> new Shard(ctx, typeKey, shardId, createBehavior, stopMessage, bufferSize, drops));
  }

  @Override
  public Receive<Object> createReceive() {
    return newReceiveBuilder()
        .onMessage(Deliver.class, this::onDeliver)
        .onMessage(Passivate.class, this::onPassivate)
        .onSignal(Terminated.class, this::onEntityTerminated)
        .onMessage(GetShardState.class, this::onGetShardState)
        .onMessageEquals(HandOff.INSTANCE, this::onHandOff)
        .onMessageEquals(CancelHandOff.INSTANCE, this::onCancelHandOff)
        .build();
  }

  private Behavior<Object> onDeliver(Deliver d) {
    ActorRef<Object> entity = entities.active(d.entityId());
    if (entity != null) {
      entity.tell(d.message());
    } else if (entities.status(d.entityId()) == EntityTable.Status.PASSIVATING) {
      if (!entities.hold(d.entityId(), d.message())) {
        drops.dropped(d.message(), "buffer full while entity [" + d.entityId() + "] of shard [" + shardId
            + "] passivates", Adapter.toClassic(getContext().getSelf()));
      }
    } else {
      entity = startEntity(d.entityId(), d.message());
      if (entity != null) {
        entity.tell(d.message());
        if (handingOff) {
          stop(d.entityId(), entity);
        }
      }
    }
    return this;
  }

  /**
   * Stops an entity after what is already in its mailbox; messages for it are held meanwhile.
   * Without a stop message of the entity's own, a PoisonPill does it: it waits in the mailbox like
   * any message, and needs no wrapper around every entity's behavior (which would cost memory per
   * entity and a call per message).
   */
  private void stop(String entityId, ActorRef<Object> entity) {
    if (entities.passivating(entityId)) {
      if (stopMessage.isPresent()) {
        entity.tell(stopMessage.get());
      } else {
        Adapter.toClassic(entity).tell(PoisonPill.getInstance(), org.apache.pekko.actor.ActorRef.noSender());
      }
    }
  }

  private ActorRef<Object> startEntity(String entityId, Object firstMessage) {
    Behavior<Object> behavior;
    try {
      behavior = createBehavior.apply(new EntityContext<>(typeKey, entityId, selfAsShard));
      if (behavior == null) {
        throw new IllegalStateException("the behavior factory returned null");
      }
    } catch (RuntimeException e) {
      getContext().getLog().error("Entity type [{}]: creating entity [{}] in shard [{}] failed", typeKey.name(),
          entityId, shardId, e);
      drops.dropped(firstMessage, "entity [" + entityId + "] could not be created: " + e,
          Adapter.toClassic(getContext().getSelf()));
      return null;
    }
    ActorRef<Object> ref = getContext().spawn(behavior, EntityTable.actorName(entityId));
    // A plain watch: the table finds the id from the ref's name, so nothing is kept per entity.
    getContext().watch(ref);
    entities.started(entityId, ref);
    return ref;
  }

  private Behavior<Object> onPassivate(Passivate p) {
    String entityId = entities.idOf(p.entity());
    if (entityId == null) {
      getContext().getLog().debug("Entity type [{}]: ignoring Passivate for {}, not an entity of shard [{}]",
          typeKey.name(), p.entity(), shardId);
    } else {
      stop(entityId, p.entity().unsafeUpcast());
    }
    return this;
  }

  private Behavior<Object> onEntityTerminated(Terminated terminated) {
    String entityId = entities.idOf(terminated.getRef());
    if (entityId == null) {
      return this;
    }
    List<Object> held = entities.stopped(entityId);
    if (!held.isEmpty()) {
      ActorRef<Object> next = startEntity(entityId, held.get(0));
      if (next != null) {
        held.forEach(next::tell);
        if (handingOff) {
          stop(entityId, next);
        }
      } else {
        held.stream().skip(1).forEach(m -> drops.dropped(m, "entity [" + entityId
            + "] could not be created again", Adapter.toClassic(getContext().getSelf())));
      }
    }
    return handingOff ? stopIfEmpty() : this;
  }

  private Behavior<Object> onHandOff() {
    handingOff = true;
    for (String entityId : entities.entityIds()) {
      ActorRef<Object> entity = entities.active(entityId);
      if (entity != null) {
        stop(entityId, entity);
      }
    }
    return stopIfEmpty();
  }

  private Behavior<Object> onCancelHandOff() {
    handingOff = false;
    return this;
  }

  /** The region sees the shard terminate after all its entities did, and reports the hand-off. */
  private Behavior<Object> stopIfEmpty() {
    return entities.size() == 0 ? Behaviors.stopped() : this;
  }

  private Behavior<Object> onGetShardState(GetShardState get) {
    get.replyTo().tell(new ShardSnapshot(shardId, entities.entityIds()));
    return this;
  }
}
