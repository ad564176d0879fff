package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.ActorPath;
import org.apache.pekko.actor.Address;
import org.jspecify.annotations.Nullable;
import org.slf4j.event.Level;

/**
 * What the coordinator reports, as values with typed fields: the shell logs each with the text it
 * {@link #render}s (tests and the benchmarks wait for some of these texts, so they stay as they
 * are), and a telemetry port may map them to events instead.
 */
@InternalApi
public sealed interface CoordinatorNotice {

  Level level();

  /** The log line, for the coordinator of {@code typeName}. */
  String render(String typeName);

  /** The exception to log with it, if any. */
  default @Nullable Throwable cause() {
    return null;
  }

  private static String of(String typeName) {
    return "Coordinator of [" + typeName + "]";
  }

  record Started(Address node, String store, String allocation) implements CoordinatorNotice {
    public Level level() {
      return Level.INFO;
    }

    public String render(String typeName) {
      return "Coordinator of entity type [" + typeName + "] started on " + node + "; state store: " + store
          + "; allocation: " + allocation;
    }
  }

  record LoadFailed(Throwable failure, Duration backoff) implements CoordinatorNotice {
    public Level level() {
      return Level.WARN;
    }

    public String render(String typeName) {
      return of(typeName) + " could not load its state (" + failure + "); retrying in " + backoff.toMillis() + " ms";
    }
  }

  record StashFull(int capacity) implements CoordinatorNotice {
    public Level level() {
      return Level.WARN;
    }

    public String render(String typeName) {
      return of(typeName) + " is loading its state and its stash of " + capacity + " messages (the larger of "
          + "buffer-size and 1000) is full; refusing requests until it has loaded (regions ask again); further "
          + "refusals are counted, not logged";
    }
  }

  record Loaded(CoordinatorState state, long term, int forgotten) implements CoordinatorNotice {
    public Level level() {
      return Level.INFO;
    }

    public String render(String typeName) {
      return of(typeName) + " loaded " + state + " as term " + term + "; forgetting " + forgotten
          + " region(s)/proxies on nodes that left the cluster";
    }
  }

  record NotAllRegistered(Duration settleTimeout) implements CoordinatorNotice {
    public Level level() {
      return Level.INFO;
    }

    public String render(String typeName) {
      return of(typeName) + ": not every hosting node's region registered within " + settleTimeout.toMillis()
          + " ms; allocating anyway";
    }
  }

  /** @param ref the proxy, as its reference prints */
  record ProxyWasRegion(Object ref) implements CoordinatorNotice {
    public Level level() {
      return Level.WARN;
    }

    public String render(String typeName) {
      return of(typeName) + ": " + ref + " registered as a region before; ignoring it as a proxy";
    }
  }

  record Registered(boolean proxy, ActorPath path) implements CoordinatorNotice {
    public Level level() {
      return Level.INFO;
    }

    public String render(String typeName) {
      return of(typeName) + ": " + (proxy ? "proxy" : "region") + " " + path + " registered";
    }
  }

  record PlacingUpFront(int shards) implements CoordinatorNotice {
    public Level level() {
      return Level.INFO;
    }

    public String render(String typeName) {
      return of(typeName) + ": placing " + shards + " shard(s) up front, in one write";
    }
  }

  record SpreadingUnused(int shards) implements CoordinatorNotice {
    public Level level() {
      return Level.INFO;
    }

    public String render(String typeName) {
      return of(typeName) + ": moving " + shards + " shard(s) placed up front and not used yet, without hand-offs, so "
          + "that every region has its share";
    }
  }

  record OfferingTold(int shards) implements CoordinatorNotice {
    public Level level() {
      return Level.INFO;
    }

    public String render(String typeName) {
      return of(typeName) + ": offering " + shards + " shard(s) whose homes were told up front to the regions that "
          + "joined; each moves only if its owner has not started it";
    }
  }

  record PlacingRemembered(int shards) implements CoordinatorNotice {
    public Level level() {
      return Level.INFO;
    }

    public String render(String typeName) {
      return of(typeName) + ": placing " + shards + " shard(s) with remembered entities";
    }
  }

  record RememberedMayNeedHomes(int shards) implements CoordinatorNotice {
    public Level level() {
      return Level.INFO;
    }

    public String render(String typeName) {
      return of(typeName) + ": " + shards + " shard(s) may have remembered entities; placing those without a home";
    }
  }

  /** @param from the region each move leaves, in the order of {@code moves} */
  record Rebalancing(List<String> moves, List<ActorPath> from) implements CoordinatorNotice {
    public Level level() {
      return Level.INFO;
    }

    public String render(String typeName) {
      return of(typeName) + ": rebalancing " + moves.size() + " shard(s): " + moves;
    }
  }

  record RemovalMarginWait(ActorPath region, int shards, Duration margin) implements CoordinatorNotice {
    public Level level() {
      return Level.INFO;
    }

    public String render(String typeName) {
      return of(typeName) + ": region " + region + " is gone with " + shards + " shard(s): its node was removed from "
          + "the cluster; they get new homes in " + margin.toMillis() + " ms (the removal margin), when that node has "
          + "surely stopped them";
    }
  }

  record RegionGone(ActorPath region, int shards) implements CoordinatorNotice {
    public Level level() {
      return Level.INFO;
    }

    public String render(String typeName) {
      return of(typeName) + ": region " + region + " is gone with " + shards + " shard(s)";
    }
  }

  record RegionShuttingDown(ActorPath region, List<String> shards) implements CoordinatorNotice {
    public Level level() {
      return Level.INFO;
    }

    public String render(String typeName) {
      return of(typeName) + ": region " + region + " is shutting down; handing off its " + shards.size()
          + " shard(s)";
    }
  }

  record MovingUnused(ActorPath region, int shards) implements CoordinatorNotice {
    public Level level() {
      return Level.INFO;
    }

    public String render(String typeName) {
      return of(typeName) + ": moving " + shards + " shard(s) of region " + region + " placed up front and not used "
          + "yet to other regions, without hand-offs";
    }
  }

  record HandOffGivenUp(String shardId, ActorPath owner, Duration timeout) implements CoordinatorNotice {
    public Level level() {
      return Level.WARN;
    }

    public String render(String typeName) {
      return of(typeName) + ": the hand-off of shard [" + shardId + "] from " + owner + " did not finish within "
          + timeout.toMillis() + " ms (a region did not answer, or entities did not stop); the shard stays where it is";
    }
  }

  record Superseded(long term, Throwable refusal) implements CoordinatorNotice {
    public Level level() {
      return Level.WARN;
    }

    public String render(String typeName) {
      return of(typeName) + " at term " + term + ": the store refused a write as superseded (" + refusal
          + "); it stops acting on what it holds and loads its state again once this node's delivery gate is open "
          + "(other members confirmed that they still count it in)";
    }
  }

  /** @param latency from the write's start to its failure's answer */
  record StoreFailed(List<CoordinatorEvent> events, Throwable failure, Duration backoff, Duration latency)
      implements CoordinatorNotice {
    public Level level() {
      return Level.WARN;
    }

    public String render(String typeName) {
      return of(typeName) + " could not store " + (events.size() == 1 ? events.get(0) : events.size() + " changes ("
          + events.get(0) + ", ...)") + " (" + failure + "); retrying in " + backoff.toMillis()
          + " ms; known shards keep working";
    }
  }

  /** A write of {@code events} was stored, {@code latency} after it started. */
  record Stored(List<CoordinatorEvent> events, Duration latency) implements CoordinatorNotice {
    public Level level() {
      return Level.DEBUG;
    }

    public String render(String typeName) {
      return of(typeName) + " stored " + events.size() + " change(s) in " + latency.toMillis() + " ms";
    }
  }

  record RememberedReadFailed(Throwable failure, Duration backoff) implements CoordinatorNotice {
    public Level level() {
      return Level.WARN;
    }

    public String render(String typeName) {
      return of(typeName) + " could not read which shards have remembered entities (" + failure + "); retrying in "
          + backoff.toMillis() + " ms";
    }
  }

  record SettlingFull(int capacity) implements CoordinatorNotice {
    public Level level() {
      return Level.WARN;
    }

    public String render(String typeName) {
      return of(typeName) + " is settling and " + capacity + " requests for shards without a home wait already (the "
          + "larger of buffer-size and 1000); refusing more until it has settled (regions ask again); further "
          + "refusals are counted, not logged";
    }
  }

  record PendingFull(int limit) implements CoordinatorNotice {
    public Level level() {
      return Level.WARN;
    }

    public String render(String typeName) {
      return of(typeName) + ": " + limit + " answers to shard-home requests already wait for the state store to hold "
          + "their homes (coordinator-pending-answers-limit); refusing more until it catches up (regions ask again); "
          + "further refusals are counted, not logged";
    }
  }

  record StoreCaughtUp(long refused) implements CoordinatorNotice {
    public Level level() {
      return Level.INFO;
    }

    public String render(String typeName) {
      return of(typeName) + ": the state store caught up; " + refused + " shard-home request(s) were refused meanwhile";
    }
  }

  /** The allocation strategy failed, or chose no region that takes shards. */
  record StrategyProblem(String problem, Throwable cause) implements CoordinatorNotice {
    public Level level() {
      return Level.ERROR;
    }

    public String render(String typeName) {
      return of(typeName) + ": " + problem;
    }
  }

  /** A handler threw: the coordinator starts again after {@code backoff} (at least) and reloads. */
  record Failed(String failed, Throwable cause, Duration backoff) implements CoordinatorNotice {
    public Level level() {
      return Level.ERROR;
    }

    public String render(String typeName) {
      return of(typeName) + " failed handling " + failed + " (" + cause + "); it starts again in "
          + backoff.toMillis() + " ms or more (coordinator-failure-backoff) and reloads its state from the store";
    }
  }

  /** A hand-off answer that ends nothing: the hand-off in progress is another (or none). */
  record HandOffAnswerIgnored(ShardingProtocol answer, Object inProgress) implements CoordinatorNotice {
    public Level level() {
      return Level.DEBUG;
    }

    public String render(String typeName) {
      return of(typeName) + ": ignoring " + answer + ", the hand-off in progress is " + inProgress;
    }
  }

  record ShardStoppedAt(String shardId, ActorPath region, ActorPath next) implements CoordinatorNotice {
    public Level level() {
      return Level.DEBUG;
    }

    public String render(String typeName) {
      return of(typeName) + ": shard [" + shardId + "] stopped at " + region + "; next home "
          + (next == null ? "none yet" : next);
    }
  }

  /** A store's answer to a call of an earlier incarnation, or a timer that no longer counts. */
  record Stale(Object input) implements CoordinatorNotice {
    public Level level() {
      return Level.DEBUG;
    }

    public String render(String typeName) {
      return of(typeName) + " ignores " + input + ", an answer to its previous incarnation";
    }
  }

  record Ignored(Object message) implements CoordinatorNotice {
    public Level level() {
      return Level.DEBUG;
    }

    public String render(String typeName) {
      return of(typeName) + " ignores unexpected " + message;
    }
  }
}
