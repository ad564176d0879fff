package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.CoordinatorBacklog;
import dev.shardkit.sharding.internal.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardHome;
import java.util.HashSet;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.slf4j.Logger;

/**
 * The coordinator's answers to requests for the home of a shard that has one, and what it does
 * when its bounded queues are full. A home the store holds is answered at once, however busy the
 * store is with other writes; a home decided but not stored yet is answered once the store holds
 * it, each (shard, region) once however often the region asks ({@link PendingHomeAnswers}), so a
 * store outage under retrying regions costs memory bounded by what is asked for, not by its
 * length. A pending answer whose shard began a hand-off meanwhile is dropped rather than sent:
 * the old home it would name is on its way out, and the region, asking again, waits for the new
 * one. Requests refused because a queue is full (the stash while loading, the queue of
 * requests waiting for settling to end, the pending answers) are counted and warned about once per
 * episode ({@link OverflowEpisode}), naming the entity type and the limit; the regions ask again.
 * Called from inside the coordinator actor; not thread-safe.
 */
final class CoordinatorAnswers {
  private final String typeName;
  private final int stashCapacity;
  private final int pendingLimit;
  private final Logger log;
  private final HandOffTracker handOffs;
  private final PendingHomeAnswers<ActorRef<Object>> pending;
  private final OverflowEpisode stashFull = new OverflowEpisode();
  private final OverflowEpisode settlingFull = new OverflowEpisode();
  /** Regions and proxies whose acknowledgement waits for the store to hold their registration. */
  private final Set<ActorRef<Object>> acksWaiting = new HashSet<>();

  /** @param handOffs the coordinator's hand-offs in progress */
  CoordinatorAnswers(CoordinatorSpec spec, Logger log, HandOffTracker handOffs) {
    this.typeName = spec.typeName();
    this.stashCapacity = spec.stashCapacity();
    this.pendingLimit = spec.settings().coordinatorPendingAnswersLimit();
    this.log = log;
    this.handOffs = handOffs;
    this.pending = new PendingHomeAnswers<>(pendingLimit);
  }

  /** Counts the messages the loading coordinator's full stash refuses. */
  OverflowEpisode stashFull() {
    return stashFull;
  }

  /**
   * Answers the request if its shard has a home decided: at once if it is stored, else once the
   * store holds it (or not at all if the queue of pending answers is full: the region asks again).
   *
   * @param term the coordinator's term, which every answer carries
   * @return false if the shard has no home decided
   */
  boolean answer(GetShardHome get, CoordinatorWrites writes, CoordinatorStoreLink store, long term) {
    String shardId = get.shardId();
    if (!writes.decided().shards().containsKey(shardId)) {
      return false;
    }
    ActorRef<Object> stored = writes.settledHome(shardId);
    if (stored != null) {
      get.region().tell(new ShardHome(shardId, stored, term));
      return true;
    }
    PendingHomeAnswers.Admission admission = pending.add(shardId, get.region());
    if (admission == PendingHomeAnswers.Admission.QUEUED_FIRST) {
      store.afterDurable(() -> answerPending(writes, store, term));
    } else if (admission == PendingHomeAnswers.Admission.REFUSED_FIRST) {
      log.warn("Coordinator of [{}]: {} answers to shard-home requests already wait for the state store to hold "
          + "their homes (coordinator-pending-answers-limit); refusing more until it catches up (regions ask again); "
          + "further refusals are counted, not logged", typeName, pendingLimit);
    }
    return true;
  }

  /** A write is stored: answers the requests whose homes the store holds now. */
  private void answerPending(CoordinatorWrites writes, CoordinatorStoreLink store, long term) {
    PendingHomeAnswers.Answered<ActorRef<Object>> answered = pending.answer(
        id -> handOffs.inProgress(id) ? null : writes.settledHome(id),
        id -> !handOffs.inProgress(id) && writes.decided().shards().containsKey(id));
    answered.answers().forEach(a -> a.region().tell(new ShardHome(a.shardId(), a.home(), term)));
    if (answered.again()) {
      store.afterDurable(() -> answerPending(writes, store, term));
    }
    if (answered.refusedInEpisode() > 0) {
      log.info("Coordinator of [{}]: the state store caught up; {} shard-home request(s) were refused meanwhile",
          typeName, answered.refusedInEpisode());
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
      log.warn("Coordinator of [{}] is settling and {} requests for shards without a home wait already (the larger "
          + "of buffer-size and 1000); refusing more until it has settled (regions ask again); further refusals are "
          + "counted, not logged", typeName, stashCapacity);
    }
  }

  /** Replies with what waits in memory now; {@code deferred} requests wait for settling to end. */
  void report(ShardCoordinator.GetBacklog get, CoordinatorWrites writes, int deferred) {
    get.replyTo().tell(new CoordinatorBacklog(pending.size(), writes.waitingEffects(), deferred,
        stashFull.total() + settlingFull.total() + pending.refused()));
  }
}
