package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.shard.ShardProtocol.EntitiesLive;
import dev.shardkit.sharding.internal.shard.ShardProtocol.ShardSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.jspecify.annotations.Nullable;

/**
 * What a shard's machine ({@link ShardMachine}) decided is to be done, in order. Each effect is
 * carried out by one call to its {@link ShardPorts} method ({@link #carryOut}): with Java 17's
 * switch unable to check a sealed type for exhaustiveness, that method is how an effect added here
 * fails to compile until every interpreter (the shard actor, the simulation) carries it out.
 *
 * <p>Internal API: public for shardkit's simulation tests; not for applications, and it may change
 * in any release.
 *
 * @param <E> what an entity's incarnation is
 */
@InternalApi
public sealed interface ShardEffect<E> {

  /**
   * Carries the effect out.
   *
   * @return the input the machine must be given next, before any other, for an effect that is
   *     answered at once ({@link StartEntity}); null for the others
   */
  @Nullable ShardInput<E> carryOut(ShardPorts<E> ports);

  /**
   * Create an incarnation of the entity, watch it and give it {@code messages}, in order, if the
   * node's delivery gate is open. Answered with {@link ShardInput.EntityStarted},
   * {@link ShardInput.EntityStartRefused} or {@link ShardInput.EntityCreationFailed}.
   */
  record StartEntity<E>(String entityId, List<Object> messages) implements ShardEffect<E> {
    @Override
    public ShardInput<E> carryOut(ShardPorts<E> ports) {
      return ports.startEntity(entityId, messages);
    }
  }

  /** Give a live entity a message. */
  record ToEntity<E>(E entity, Object message) implements ShardEffect<E> {
    @Override
    public @Nullable ShardInput<E> carryOut(ShardPorts<E> ports) {
      ports.tell(entity, message);
      return null;
    }
  }

  /** Stop an entity after what is already in its mailbox (the type's stop message). */
  record StopEntity<E>(E entity) implements ShardEffect<E> {
    @Override
    public @Nullable ShardInput<E> carryOut(ShardPorts<E> ports) {
      ports.stop(entity);
      return null;
    }
  }

  /**
   * Read the remember-entities store; {@link ShardInput.RememberLoaded} or a failure follows, or at
   * once {@link ShardInput.RememberRefused} while the node's delivery gate is closed.
   */
  record RememberLoad<E>(long readId) implements ShardEffect<E> {
    @Override
    public ShardInput<E> carryOut(ShardPorts<E> ports) {
      return ports.rememberLoad(readId);
    }
  }

  /**
   * Write these changes to the remember-entities store; {@link ShardInput.RememberWritten} or a
   * failure follows, or at once {@link ShardInput.RememberRefused} while the node's delivery gate is
   * closed.
   */
  record RememberUpdate<E>(long batchId, Set<String> started, Set<String> stopped) implements ShardEffect<E> {
    @Override
    public ShardInput<E> carryOut(ShardPorts<E> ports) {
      return ports.rememberUpdate(batchId, started, stopped);
    }
  }

  /** Be told ({@link ShardInput.GateOpened}) once the node's delivery gate is open. */
  record ParkOnGate<E>() implements ShardEffect<E> {
    @Override
    public @Nullable ShardInput<E> carryOut(ShardPorts<E> ports) {
      ports.parkOnGate();
      return null;
    }
  }

  /** Tell the region how many entities are live. */
  record TellRegion<E>(EntitiesLive live) implements ShardEffect<E> {
    @Override
    public @Nullable ShardInput<E> carryOut(ShardPorts<E> ports) {
      ports.tellRegion(live);
      return null;
    }
  }

  /** Answer a {@link ShardInput.GetShardState}. */
  record ReplySnapshot<E>(ActorRef<Object> to, ShardSnapshot snapshot) implements ShardEffect<E> {
    @Override
    public @Nullable ShardInput<E> carryOut(ShardPorts<E> ports) {
      ports.replySnapshot(to, snapshot);
      return null;
    }
  }

  /**
   * Fire {@link ShardInput.TimerFired} with {@code key} and {@code generation} after {@code delay},
   * instead of any timer of {@code key} started before.
   */
  record StartTimer<E>(ShardTimer key, long generation, Duration delay) implements ShardEffect<E> {
    @Override
    public @Nullable ShardInput<E> carryOut(ShardPorts<E> ports) {
      ports.startTimer(key, generation, delay);
      return null;
    }
  }

  /** Cancel the timer of {@code key} (the machine ignores it anyway if it fires all the same). */
  record CancelTimer<E>(ShardTimer key) implements ShardEffect<E> {
    @Override
    public @Nullable ShardInput<E> carryOut(ShardPorts<E> ports) {
      ports.cancelTimer(key);
      return null;
    }
  }

  /** A message is not delivered: count it, publish it as a dead letter, and warn (rate-limited). */
  record Drop<E>(Object message, String reason) implements ShardEffect<E> {
    @Override
    public @Nullable ShardInput<E> carryOut(ShardPorts<E> ports) {
      ports.drop(message, reason);
      return null;
    }
  }

  /** Something to log. */
  record Report<E>(ShardNotice notice) implements ShardEffect<E> {
    @Override
    public @Nullable ShardInput<E> carryOut(ShardPorts<E> ports) {
      ports.report(notice);
      return null;
    }
  }

  /**
   * The shard's hand-off is complete (every entity stopped, every change written): the shard
   * stops, and its timers with it. The machine handles nothing after it.
   */
  record Stopped<E>() implements ShardEffect<E> {
    @Override
    public @Nullable ShardInput<E> carryOut(ShardPorts<E> ports) {
      ports.stopped();
      return null;
    }
  }
}
