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
 * How a shard's effects ({@link ShardEffect}) are carried out: by the shard actor with Pekko, by
 * shardkit's simulation with its models. Each method is one effect; none decides anything.
 *
 * <p>Internal API: public for shardkit's simulation tests; not for applications, and it may change
 * in any release.
 *
 * @param <E> what an entity's incarnation is
 */
@InternalApi
public interface ShardPorts<E> {

  /**
   * If the node's delivery gate is open, creates, watches and starts the entity's incarnation and
   * gives it {@code messages}, in order.
   *
   * @return {@link ShardInput.EntityStarted}; {@link ShardInput.EntityStartRefused} with the
   *     messages if the gate is closed; {@link ShardInput.EntityCreationFailed} with the messages if
   *     the entity's behavior could not be created
   */
  ShardInput<E> startEntity(String entityId, List<Object> messages);

  void tell(E entity, Object message);

  void stop(E entity);

  /**
   * Reads the remember-entities store, unless this node's delivery gate is closed.
   *
   * @return null once the read has gone out ({@link ShardInput.RememberLoaded} or
   *     {@link ShardInput.RememberLoadFailed} follows); {@link ShardInput.RememberRefused} if the gate
   *     is closed
   */
  @Nullable ShardInput<E> rememberLoad(long readId);

  /**
   * Writes these changes to the remember-entities store, unless this node's delivery gate is closed.
   *
   * @return null once the write has gone out ({@link ShardInput.RememberWritten} or
   *     {@link ShardInput.RememberWriteFailed} follows); {@link ShardInput.RememberRefused} if the
   *     gate is closed
   */
  @Nullable ShardInput<E> rememberUpdate(long batchId, Set<String> started, Set<String> stopped);

  void parkOnGate();

  void tellRegion(EntitiesLive live);

  void replySnapshot(ActorRef<Object> to, ShardSnapshot snapshot);

  void startTimer(ShardTimer key, long generation, Duration delay);

  void cancelTimer(ShardTimer key);

  void drop(Object message, String reason);

  void report(ShardNotice notice);

  void stopped();
}
