package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.internal.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.ShardingProtocol.HandOffDeclined;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardHomes;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardStopped;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The coordinator's side of hand-offs, run inside the coordinator actor once its state is loaded:
 * it starts them (a rebalance round's moves, a region's graceful shutdown, and the told shards
 * offered to a region that joined, which move only if never started) by telling every region
 * and proxy that takes part, ends them when the shard reports that it stopped (its next home is
 * stored, then announced), gives them up after the hand-off timeout, and ends those of a region
 * that is gone. What to decide is {@link HandOffTracker}'s, {@link Placement}'s and (who is told)
 * {@link HandOffAudience}'s; this stores and sends it.
 * When the last hand-off of a round ends, it says so, so that the next round starts at once. Owned
 * by the coordinator actor; not thread-safe.
 */
final class CoordinatorHandOffs {

  /** The hand-off of the shard has taken too long. Local only. */
  record Timeout(String shardId) implements NoSerializationVerificationNeeded {}

  private final CoordinatorSpec spec;
  private final ActorContext<Object> context;
  private final TimerScheduler<Object> timers;
  /** The coordinator's term, on everything it tells regions. */
  private final long term;
  private final HandOffTracker tracker;
  private final Placement placement;
  private final CoordinatorWrites writes;
  private final CoordinatorStoreLink store;
  private final Supplier<Placement.View> view;
  private final Runnable roundEnded;

  /**
   * @param view what placement sees now
   * @param roundEnded runs when the last hand-off in progress has ended
   */
  CoordinatorHandOffs(CoordinatorSpec spec, ActorContext<Object> context, TimerScheduler<Object> timers, long term,
      HandOffTracker tracker, Placement placement, CoordinatorWrites writes, CoordinatorStoreLink store,
      Supplier<Placement.View> view, Runnable roundEnded) {
    this.spec = spec;
    this.context = context;
    this.timers = timers;
    this.term = term;
    this.tracker = tracker;
    this.placement = placement;
    this.writes = writes;
    this.store = store;
    this.view = view;
    this.roundEnded = roundEnded;
  }

  /** Tells every region and proxy that the shard is leaving its home; the owner drives the rest. */
  void start(String shardId) {
    begin(shardId, false);
  }

  /**
   * Like {@link #start}, but the owner moves the shard only if it never started it (else it
   * answers {@code HandOffDeclined}, see {@link #declined}). Where it goes is decided when it
   * stopped, as for any hand-off.
   */
  void startIfUnstarted(String shardId) {
    begin(shardId, true);
  }

  private void begin(String shardId, boolean ifUnstarted) {
    // A shard whose home is still being stored is left for the next round (or the region's next
    // shutdown request): the regions may not know that home yet.
    ActorRef<Object> owner = writes.settledHome(shardId);
    if (owner == null || tracker.inProgress(shardId)) {
      return;
    }
    int id;
    if (ifUnstarted) {
      id = tracker.startIfUnstarted(shardId, owner);
    } else {
      placement.used(shardId);
      id = tracker.start(shardId, owner);
    }
    Set<ActorRef<Object>> everyone = everyone();
    BeginHandOff begin = new BeginHandOff(shardId, owner, everyone, id, term, ifUnstarted);
    everyone.forEach(r -> r.tell(begin));
    timers.startSingleTimer(new Timeout(shardId), spec.settings().handOffTimeout());
  }

  /**
   * The owner started the shard of a hand-off that moves it only if it never started: the shard
   * stays, in use from now on, and every region hears its home again (they stopped routing to it
   * for the hand-off). If the owner is shutting down meanwhile, the shard is handed off as any.
   */
  void declined(HandOffDeclined declined) {
    String shardId = declined.shardId();
    if (!tracker.acceptsDecline(shardId, declined.region(), declined.handOffId())) {
      context.getLog().debug("Coordinator of [{}]: ignoring {}, the hand-off in progress is {}", spec.typeName(),
          declined, tracker.get(shardId));
      return;
    }
    timers.cancel(new Timeout(shardId));
    tracker.ended(shardId);
    placement.declined(shardId);
    announce(new ShardHome(shardId, declined.region(), term));
    if (tracker.shuttingDown().contains(declined.region())) {
      start(shardId);
    }
    endRound();
  }

  /** The region is shutting down: all its shards are handed off, and it takes no new ones. */
  void shutDown(ActorRef<Object> region) {
    List<String> shards = writes.decided().regions().get(region);
    if (shards != null) {
      if (tracker.shutDown(region)) {
        context.getLog().info("Coordinator of [{}]: region {} is shutting down; handing off its {} shard(s)",
            spec.typeName(), region.path(), shards.size());
      }
      shards.forEach(this::start);
    }
  }

  /** The shard stopped at its old home: if that ends a hand-off, its next home is stored and announced. */
  void stopped(ShardStopped stopped) {
    String shardId = stopped.shardId();
    ActorRef<Object> home = writes.decided().shards().get(shardId);
    // A hand-off this coordinator did not start (its predecessor did) still completes here, as
    // long as the shard's recorded home is the region reporting it.
    if (!tracker.accepts(shardId, stopped.region(), stopped.handOffId(), home)) {
      context.getLog().debug("Coordinator of [{}]: ignoring {}, the hand-off in progress is {}", spec.typeName(),
          stopped, tracker.get(shardId));
      return;
    }
    timers.cancel(new Timeout(shardId));
    Set<ActorRef<Object>> waiting = tracker.waitingFor(shardId);
    boolean unstarted = tracker.isIfUnstarted(shardId);
    Placement.Moved moved = placement.afterHandOff(view.get(), shardId, stopped.region(),
        waiting.isEmpty() ? stopped.region() : waiting.iterator().next());
    ActorRef<Object> next = moved.next();
    context.getLog().debug("Coordinator of [{}]: shard [{}] stopped at {}; next home {}", spec.typeName(), shardId,
        stopped.region().path(), next == null ? "none yet" : next.path());
    store.persist(moved.events(), () -> {
      Set<ActorRef<Object>> asked = tracker.ended(shardId);
      Set<ActorRef<Object>> toldNewHome = HandOffAudience.toldNewHome(registered(), tracker.shuttingDown(), asked);
      if (next != null && unstarted) {
        // Nobody started it: its new home starts it on its first message, as one told up front.
        ShardHomes told = new ShardHomes(Map.of(shardId, next), term);
        toldNewHome.forEach(r -> r.tell(told));
      } else if (next != null) {
        ShardHome nextHome = new ShardHome(shardId, next, term);
        toldNewHome.forEach(r -> r.tell(nextHome));
      } else {
        askAgain(shardId, asked);
      }
      endRound();
    });
  }

  /** The shard's hand-off took too long: it is given up, and the shard stays where it is. */
  void timedOut(String shardId) {
    HandOffTracker.InProgress gaveUp = tracker.giveUp(shardId);
    if (gaveUp != null) {
      context.getLog().warn("Coordinator of [{}]: the hand-off of shard [{}] from {} did not finish within {} ms "
          + "(a region did not answer, or entities did not stop); the shard stays where it is", spec.typeName(),
          shardId, gaveUp.owner().path(), spec.settings().handOffTimeout().toMillis());
      if (gaveUp.owner().equals(writes.decided().shards().get(shardId))) {
        announce(new ShardHome(shardId, gaveUp.owner(), term));
      }
      endRound();
    }
  }

  /**
   * Ends the hand-offs from a region that is gone: its shards have no home and get one on demand.
   * Call once the region's end is stored.
   *
   * @param abandoned the shards that were being handed off from it ({@link HandOffTracker#ownedBy})
   */
  void abandoned(List<String> abandoned) {
    for (String shardId : abandoned) {
      timers.cancel(new Timeout(shardId));
      askAgain(shardId, tracker.ended(shardId));
    }
    if (!abandoned.isEmpty()) {
      endRound();
    }
  }

  /**
   * Every region and proxy that takes part in hand-offs hears a shard's home: they all stopped
   * routing to it for the move.
   */
  void announce(ShardHome home) {
    everyone().forEach(r -> r.tell(home));
  }

  /** The requests that waited for a hand-off to end are handled as if they came now. */
  private void askAgain(String shardId, Set<ActorRef<Object>> asked) {
    asked.forEach(r -> context.getSelf().tell(new GetShardHome(shardId, r)));
  }

  /** Who takes part in a hand-off: see {@link HandOffAudience#participants}. */
  private Set<ActorRef<Object>> everyone() {
    Map<ActorRef<Object>, List<String>> homes = writes.decided().regions();
    return HandOffAudience.participants(registered(), tracker.shuttingDown(),
        r -> !homes.getOrDefault(r, List.of()).isEmpty() || !tracker.ownedBy(r).isEmpty());
  }

  /** Every registered region and proxy. */
  private Set<ActorRef<Object>> registered() {
    Set<ActorRef<Object>> registered = new HashSet<>(writes.decided().regions().keySet());
    registered.addAll(writes.decided().proxies());
    return registered;
  }

  private void endRound() {
    if (tracker.isEmpty()) {
      roundEnded.run();
    }
  }
}
