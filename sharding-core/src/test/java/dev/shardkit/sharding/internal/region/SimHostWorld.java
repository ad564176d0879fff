package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.delivery.SimLinkHost;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What the simulation of the cluster ({@code sim.ClusterSim}) gives the hosts of the region and
 * link machines ({@link SimRegionHost}, {@link SimLinkHost}): its clock, network, timers, death
 * watch and bookkeeping. The hosts live in this package only because the region's and the link's
 * machines, inputs, effects and ports are package-private here; the simulation is in
 * {@code internal.sim}.
 */
public interface SimHostWorld {

  long now();

  /** Sends {@code message} from node {@code from} to the actor {@code to}, wherever it runs. */
  void send(int from, ActorRef<Object> to, Object message);

  /** Runs {@code action} on node {@code node} after {@code nanos}, once the node runs (a frozen node's timers fire at thaw). */
  void after(int node, long nanos, Runnable action);

  /** Whether node {@code node}'s delivery gate is open now, as the gate itself reads (the region shell reads it so). */
  boolean gateOpen(int node);

  /** Starts a shard of the region {@code region} on its node. */
  ActorRef<Object> startShard(int node, ActorRef<Object> region, String shardId, int entityLimit);

  /** Node {@code node}'s actor {@code watcher} watches {@code ref}: {@code terminated} runs once it has. */
  void watch(int node, ActorRef<Object> ref, Runnable terminated);

  /** A new name for a link of a region on node {@code node}. */
  ActorRef<Object> linkRef(int node, ActorRef<Object> region);

  /** Makes {@code ref} an actor on {@code node} that receives what is sent to it. */
  void register(ActorRef<Object> ref, int node, java.util.function.Consumer<Object> receive);

  /** The actor {@code ref} stopped: its watchers hear so. */
  void stoppedActor(ActorRef<Object> ref);

  /** A machine dropped {@code message} (a message, a Deliver, a batch item) for {@code reason}. */
  void dropped(int node, Object message, String reason);

  /** The region on {@code node} handed {@code item} to its link to {@code destination}. */
  void offered(int node, ActorRef<Object> destination, Object item);

  /**
   * The link on {@code node} to {@code destination} closed with {@code unacknowledged} items, which
   * the region does not send on (redelivery is off): they may or may not have been processed there.
   */
  void goneUnacknowledged(int node, ActorRef<Object> destination, List<Object> unacknowledged);

  /**
   * With redelivery on, a closed link handed back what its destination had not acknowledged, to
   * go to the shards' next homes: those messages may be processed twice (at least once).
   */
  void redelivering(int node, ActorRef<Object> destination, List<Object> unacknowledged);

  /** A link took {@code item} into a batch to {@code destination} (the first time, or again). */
  void sent(int node, ActorRef<Object> destination, Object item);

  /** The destination {@code destination} acknowledged {@code item}, which a link on {@code node} sent it. */
  void acknowledged(int node, ActorRef<Object> destination, Object item);

  /** Node {@code node}'s region heard that its link to {@code destination} was confirmed after a probe. */
  void linkConfirmed(int node, ActorRef<Object> destination);

  void trace(int node, String what, Object input, List<?> effects);

  /** A machine's log line, as the notice it reported. */
  void noticed(int node, Object notice);
}
