package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.CoordinatorBacklog;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import java.util.HashSet;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The coordinator's answers to requests for the home of a shard that has one, and what it does
 * when its bounded queues are full. A home the store holds is answered at once, however busy the
 * store is with other writes; a home decided but not stored yet is answered once the store holds
 * it, each (shard, region) once however often the region asks ({@link PendingHomeAnswers}), so a
 * store outage under retrying regions costs memory bounded by what is asked for, not by its
 * length. A pending answer whose shard began a hand-off meanwhile is dropped rather than sent:
 * the old home it would name is on its way out, and the region, asking again, waits for the new
 * one. Requests refused because a queue is full (the stash while loading, the queue of
 * requests waiting for settling to end, the pending answers) are counted and reported once per
 * episode ({@link OverflowEpisode}), naming the limit; the regions ask again. A component of the
 * coordinator machine: its answers and reports are effects. Not thread-safe.
 */
final class CoordinatorAnswers {
  private final int stashCapacity;
  private final int pendingLimit;
  private final CoordinatorEffects out;
  private final HandOffTracker handOffs;
  private final PendingHomeAnswers<ActorRef<Object>> pending;
  private final OverflowEpisode stashFull = new OverflowEpisode();
  private final OverflowEpisode settlingFull = new OverflowEpisode();
  /** Regions and proxies whose acknowledgement waits for the store to hold their registration. */
  private final Set<ActorRef<Object>> acksWaiting = new HashSet<>();

  /** @param handOffs the coordinator's hand-offs in progress */
  CoordinatorAnswers(CoordinatorConfig config, CoordinatorEffects out, HandOffTracker handOffs) {
    this.stashCapacity = config.stashCapacity();
    this.pendingLimit = config.pendingAnswersLimit();
    this.out = out;
    this.handOffs = handOffs;
    this.pending = new PendingHomeAnswers<>(pendingLimit);
  }

  /** A message the loading coordinator's full stash refuses: counted, the first of an episode reported. */
  void refusedWhileLoading() {
    if (stashFull.refused()) {
      out.report(new CoordinatorNotice.StashFull(stashCapacity));
    }
  }

  /**
   * Answers the request if its shard has a home decided: at once if it is stored, else once the
   * store holds it (or not at all if the queue of pending answers is full: the region asks again).
   *
   * @param term the coordinator's term, which every answer carries
   * @return false if the shard has no home decided
   */
  boolean answer(GetShardHome get, CoordinatorStore store, long term) {
    CoordinatorWrites writes = store.writes();
    String shardId = get.shardId();
    if (!writes.decided().shards().containsKey(shardId)) {
      return false;
    }
    ActorRef<Object> stored = writes.settledHome(shardId);
    if (stored != null) {
      out.send(get.region(), new ShardHome(shardId, stored, term));
      return true;
    }
    PendingHomeAnswers.Admission admission = pending.add(shardId, get.region());
    if (admission == PendingHomeAnswers.Admission.QUEUED_FIRST) {
      store.afterDurable(() -> answerPending(store, term));
    } else if (admission == PendingHomeAnswers.Admission.REFUSED_FIRST) {
      out.report(new CoordinatorNotice.PendingFull(pendingLimit));
    }
    return true;
  }

  /** A write is stored: answers the requests whose homes the store holds now. */
  private void answerPending(CoordinatorStore store, long term) {
    CoordinatorWrites writes = store.writes();
    PendingHomeAnswers.Answered<ActorRef<Object>> answered = pending.answer(
        id -> handOffs.inProgress(id) ? null : writes.settledHome(id),
        id -> !handOffs.inProgress(id) && writes.decided().shards().containsKey(id));
    answered.answers().forEach(a -> out.send(a.region(), new ShardHome(a.shardId(), a.home(), term)));
    if (answered.again()) {
      store.afterDurable(() -> answerPending(store, term));
    }
    if (answered.refusedInEpisode() > 0) {
      out.report(new CoordinatorNotice.StoreCaughtUp(answered.refusedInEpisode()));
    }
  }

  /**
   * A region (or proxy) registered; its acknowledgement is sent once the store holds the
   * registration. While the store is away, a region whose registration is not stored registers
   * again every {@code retry-interval}; its acknowledgement waits once however often it does.
   *
   * @return false if its acknowledgement already waits: a registration that stores nothing new
   *     needs no second one
   */
  boolean awaitAck(ActorRef<Object> registered) {
    return acksWaiting.add(registered);
  }

  /** The registration of {@code registered} is stored and its acknowledgement sent. */
  void acked(ActorRef<Object> registered) {
    acksWaiting.remove(registered);
  }

  /** A request for a homeless shard could not wait for settling to end: the queue is full. */
  void refusedWhileSettling() {
    if (settlingFull.refused()) {
      out.report(new CoordinatorNotice.SettlingFull(stashCapacity));
    }
  }

  /** What waits in memory now; {@code deferred} requests wait for settling to end. */
  CoordinatorBacklog backlog(CoordinatorWrites writes, int deferred) {
    return new CoordinatorBacklog(pending.size(), writes == null ? 0 : writes.waitingEffects(), deferred,
        stashFull.total() + settlingFull.total() + pending.refused());
  }
}
