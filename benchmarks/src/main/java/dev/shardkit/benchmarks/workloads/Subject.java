package dev.shardkit.benchmarks.workloads;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * A sharding library under test, behind one interface, so that each workload is written once and
 * runs the same steps against both.
 */
public interface Subject {
  /** The entity type every workload uses. */
  String TYPE_NAME = "Counter";

  String name();

  /**
   * Starts the {@link Counter} entity type on this node with the library's defaults (and the
   * node's configuration). The node hosts entities if it has {@code role} (any node when empty);
   * otherwise it only routes.
   */
  Node start(ActorSystem<?> system, Counter.Hook hook, Optional<String> role);

  /**
   * Starts the {@link Counter} entity type on this node, hosting, with remember-entities on; the
   * store and where it keeps its files come from the node's configuration.
   */
  Node startRemembering(ActorSystem<?> system, Counter.Hook hook);

  /** The entity type on one node. */
  interface Node {
    /** Sends through the region actor, as an envelope. */
    void tellViaRegion(String entityId, Counter.Command message);

    /** The library's entity reference. */
    Ref ref(String entityId);

    /** The shard the library puts this entity in. */
    String shardId(String entityId);

    /** The shards this node hosts, as the library reports them. */
    CompletionStage<Set<String>> localShards(Duration timeout);

    /**
     * Messages the library dropped on this node itself since the type started here, to dead
     * letters, because a buffer was full or the input was bad: what it tells its user about, as
     * opposed to what remoting drops under it. shardkit counts them in
     * {@code ShardRegionState.droppedMessages()} (and warns, rate-limited); Pekko's sharding counts
     * nothing, so for Pekko these are the {@link Counter.Add} messages that its sharding actors
     * sent to dead letters (see {@link DeadLetterTally}).
     */
    CompletionStage<Long> droppedMessages(Duration timeout);
  }

  /** An entity reference of either library. */
  interface Ref {
    void tell(Counter.Command message);

    CompletionStage<Counter.Count> get(Duration timeout);
  }

  /**
   * The subject of a variant name.
   *
   * @throws IllegalArgumentException for another name
   */
  static Subject of(String name) {
    return switch (name) {
      case "shardkit" -> new ShardkitSubject();
      case "pekko" -> new PekkoSubject();
      default -> throw new IllegalArgumentException("no sharding library named [" + name
          + "]; expected shardkit or pekko");
    };
  }
}
