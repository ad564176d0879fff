package dev.shardkit.sharding.internal.telemetry;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * shardkit's JDK Flight Recorder events, one per kind of
 * {@link dev.shardkit.sharding.spi.ShardingEvent}, named {@code shardkit.<Kind>} and filled by
 * {@link JfrTelemetry}. Without stack traces: they report control-plane decisions, whose thread's
 * stack says nothing more.
 */
final class JfrTelemetryEvents {
  private JfrTelemetryEvents() {}

  /** The fields every event has. */
  abstract static class Base extends Event {
    @Label("Node")
    @Description("The address of the reporting node's actor system")
    String node;
  }

  /** The fields of an event about one entity type. */
  abstract static class Typed extends Base {
    @Label("Entity Type")
    String typeName;
  }

  @Name("shardkit.CoordinatorStarted")
  @Label("Coordinator Started")
  @Category({"shardkit", "Sharding"})
  @Description("A coordinator started on this node; it loads its state next.")
  @StackTrace(false)
  static final class CoordinatorStarted extends Typed {
    @Label("State Store")
    @Description("What keeps the coordinator's state")
    String store;

    @Label("Allocation")
    @Description("The allocation strategy")
    String allocation;
  }

  @Name("shardkit.CoordinatorLoaded")
  @Label("Coordinator Loaded")
  @Category({"shardkit", "Sharding"})
  @Description("The coordinator loaded its state and acts at a new term.")
  @StackTrace(false)
  static final class CoordinatorLoaded extends Typed {
    @Label("Term")
    @Description("The term it acts at")
    long term;

    @Label("Regions")
    @Description("Regions in the state loaded")
    int regions;

    @Label("Shards")
    @Description("Shards with a home in it")
    int shards;

    @Label("Forgotten")
    @Description("Regions and proxies forgotten because their nodes left")
    int forgotten;
  }

  @Name("shardkit.CoordinatorFailed")
  @Label("Coordinator Failed")
  @Category({"shardkit", "Sharding"})
  @Description("The coordinator's handler threw; it restarts and loads again.")
  @StackTrace(false)
  static final class CoordinatorFailed extends Typed {
    @Label("Failure")
    @Description("The exception")
    String failure;

    @Label("Restart In")
    @Description("Back-off before it starts again")
    @Timespan(Timespan.MILLISECONDS)
    long restartIn;
  }

  @Name("shardkit.CoordinatorSuperseded")
  @Label("Coordinator Superseded")
  @Category({"shardkit", "Sharding"})
  @Description("The state store refused a write: another coordinator loaded after this one.")
  @StackTrace(false)
  static final class CoordinatorSuperseded extends Typed {
    @Label("Term")
    @Description("The term it stops acting at")
    long term;
  }

  @Name("shardkit.CoordinatorStoreWrite")
  @Label("Coordinator Store Write")
  @Category({"shardkit", "Sharding"})
  @Description("A write to the coordinator's state store ended.")
  @StackTrace(false)
  static final class CoordinatorStoreWrite extends Typed {
    @Label("Changes")
    @Description("Changes the write carried")
    int changes;

    @Label("Latency")
    @Description("From the write's start to its answer")
    @Timespan(Timespan.NANOSECONDS)
    long latency;

    @Label("Failure")
    @Description("The exception, if it failed")
    String failure;
  }

  @Name("shardkit.ShardPlaced")
  @Label("Shard Placed")
  @Category({"shardkit", "Sharding"})
  @Description("The state store holds a shard's new home.")
  @StackTrace(false)
  static final class ShardPlaced extends Typed {
    @Label("Shard")
    String shardId;

    @Label("Region")
    @Description("The region hosting it now")
    String region;
  }

  @Name("shardkit.RebalanceRound")
  @Label("Rebalance Round")
  @Category({"shardkit", "Sharding"})
  @Description("The coordinator began moving shards by hand-off.")
  @StackTrace(false)
  static final class RebalanceRound extends Typed {
    @Label("Moves")
    @Description("Shards moved")
    int moveCount;

    @Label("Move List")
    @Description("shard: from-region (reason), ...")
    String moves;
  }

  @Name("shardkit.HandOffGivenUp")
  @Label("Hand-off Given Up")
  @Category({"shardkit", "Sharding"})
  @Description("A hand-off did not finish within the hand-off timeout; the shard stays.")
  @StackTrace(false)
  static final class HandOffGivenUp extends Typed {
    @Label("Shard")
    String shardId;

    @Label("Region")
    @Description("The region that did not answer")
    String region;

    @Label("Timeout")
    @Timespan(Timespan.MILLISECONDS)
    long timeout;
  }

  @Name("shardkit.HandOffStarted")
  @Label("Hand-off Started")
  @Category({"shardkit", "Sharding"})
  @Description("A shard hosted on this node begins its hand-off.")
  @StackTrace(false)
  static final class HandOffStarted extends Typed {
    @Label("Shard")
    String shardId;
  }

  @Name("shardkit.HandOffFinished")
  @Label("Hand-off Finished")
  @Category({"shardkit", "Sharding"})
  @Description("A shard hosted on this node stopped for its hand-off.")
  @StackTrace(false)
  static final class HandOffFinished extends Typed {
    @Label("Shard")
    String shardId;

    @Label("Hand-off Duration")
    @Description("Since the hand-off started (the event's own duration is 0: it is committed at once)")
    @Timespan(Timespan.NANOSECONDS)
    long handOffDuration;

    @Label("Held Messages")
    @Description("Messages held until the next home is known")
    int held;
  }

  @Name("shardkit.HeldReleased")
  @Label("Held Messages Released")
  @Category({"shardkit", "Sharding"})
  @Description("A region learned a shard's home and sends the messages it held.")
  @StackTrace(false)
  static final class HeldReleased extends Typed {
    @Label("Shard")
    String shardId;

    @Label("Messages")
    int messages;
  }

  @Name("shardkit.HomesTold")
  @Label("Homes Told")
  @Category({"shardkit", "Sharding"})
  @Description("A region was told the homes placed up front.")
  @StackTrace(false)
  static final class HomesTold extends Typed {
    @Label("Region")
    String region;

    @Label("Told")
    int told;

    @Label("Term")
    long term;

    @Label("Learned")
    @Description("Homes in other regions it did not know")
    int learned;

    @Label("Placed Here")
    int placedHere;
  }

  @Name("shardkit.RegionShutDown")
  @Label("Region Shut Down")
  @Category({"shardkit", "Sharding"})
  @Description("A region shut down gracefully.")
  @StackTrace(false)
  static final class RegionShutDown extends Typed {
  }

  @Name("shardkit.MessageDropped")
  @Label("Message Dropped")
  @Category({"shardkit", "Sharding"})
  @Description("A message was dropped to dead letters.")
  @StackTrace(false)
  static final class MessageDropped extends Typed {
    @Label("Reason")
    String reason;
  }

  @Name("shardkit.GateClosed")
  @Label("Gate Closed")
  @Category({"shardkit", "Node"})
  @Description("This node's delivery gate closed.")
  @StackTrace(false)
  static final class GateClosed extends Base {
    @Label("Reason")
    String reason;
  }

  @Name("shardkit.GateOpened")
  @Label("Gate Opened")
  @Category({"shardkit", "Node"})
  @Description("This node's delivery gate opened again.")
  @StackTrace(false)
  static final class GateOpened extends Base {
    @Label("Confirmations")
    int confirmations;

    @Label("Closed For")
    @Timespan(Timespan.NANOSECONDS)
    long closedFor;
  }

  @Name("shardkit.LinkResent")
  @Label("Link Resent")
  @Category({"shardkit", "Node"})
  @Description("A link to another node sent unacknowledged batches again.")
  @StackTrace(false)
  static final class LinkResent extends Base {
    @Label("Destination")
    @Description("The region it delivers to")
    String destination;

    @Label("Batches")
    int batches;

    @Label("Reason")
    String reason;
  }
}
