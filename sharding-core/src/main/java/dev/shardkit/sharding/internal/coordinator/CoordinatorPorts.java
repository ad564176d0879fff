package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.CoordinatorBacklog;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * How the {@link CoordinatorEffect}s are carried out: one method per effect, implemented by the
 * coordinator actor with Pekko (and by the simulation with its models). Each does exactly what it
 * says; none decides anything or calls back into the machine, whose answers (a store's, a timer's)
 * come back as inputs.
 */
@InternalApi
public interface CoordinatorPorts {
  void send(ActorRef<Object> to, ShardingProtocol message);

  /** Tells the region on each node {@code hello}, and asks each node whether it has a region. */
  void announce(List<Address> nodes, RegisterAck hello);

  void watch(ActorRef<Object> ref);

  void load(long attempt);

  void store(long writeId, List<CoordinatorEvent> events, CoordinatorState after);

  void readRememberedShards(long readId);

  /**
   * Answers {@link CoordinatorInput.GateOpened} once this node's delivery gate is open; never if
   * the node is downed or removed.
   */
  void awaitGate();

  void startTimer(CoordinatorTimer key, long generation, Duration delay);

  void cancelTimer(CoordinatorTimer key);

  void cancelAllTimers();

  void replyBacklog(ActorRef<CoordinatorBacklog> to, CoordinatorBacklog backlog);

  /** Counts and reports a message the coordinator does not act on, as a dead letter. */
  void drop(Object message, String reason);

  void report(CoordinatorNotice notice);

  /** The coordinator stops for good (its store is closed). */
  void stopped();
}
