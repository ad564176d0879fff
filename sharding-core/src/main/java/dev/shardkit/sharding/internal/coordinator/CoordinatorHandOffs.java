package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.internal.wire.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffDeclined;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHomes;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardStopped;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The coordinator's side of hand-offs, a component of its machine once its state is loaded: it
 * starts them (a rebalance round's moves, a region's graceful shutdown, and the told shards
 * offered to a region that joined, which move only if never started) by telling every region
 * and proxy that takes part, ends them when the shard reports that it stopped (its next home is
 * stored, then announced), gives them up after the hand-off timeout, and ends those of a region
 * that is gone. What to decide is {@link HandOffTracker}'s, {@link Placement}'s and (who is told)
 * {@link HandOffAudience}'s; this stores it and says what to send, as effects.
 * When the last hand-off of a round ends, it says so, so that the next round starts at once.
 * Not thread-safe.
 */
final class CoordinatorHandOffs {

  private final Duration timeout;
  private final CoordinatorEffects out;
  /** The coordinator's term, on everything it tells regions. */
  private final long term;
  private final HandOffTracker tracker;
  private final Placement placement;
  private final CoordinatorStore store;
  private final Supplier<Placement.View> view;
  private final Consumer<GetShardHome> askAgain;
  private final Runnable roundEnded;

  /**
   * @param view what placement sees now
   * @param askAgain handles a request again, after the current input (a request that waited for a
   *     hand-off to end)
   * @param roundEnded runs when the last hand-off in progress has ended
   */
  CoordinatorHandOffs(Duration timeout, CoordinatorEffects out, long term, HandOffTracker tracker,
      Placement placement, CoordinatorStore store, Supplier<Placement.View> view, Consumer<GetShardHome> askAgain,
      Runnable roundEnded) {
    this.timeout = timeout;
    this.out = out;
    this.term = term;
    this.tracker = tracker;
    this.placement = placement;
    this.store = store;
    this.view = view;
    this.askAgain = askAgain;
    this.roundEnded = roundEnded;
  }

  private CoordinatorWrites writes() {
    return store.writes();
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
    ActorRef<Object> owner = writes().settledHome(shardId);
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
    everyone.forEach(r -> out.send(r, begin));
    out.startTimer(new CoordinatorTimer.HandOffTimeout(shardId), timeout);
  }

  /**
   * The owner started the shard of a hand-off that moves it only if it never started: the shard
   * stays, in use from now on, and every region hears its home again (they stopped routing to it
   * for the hand-off). If the owner is shutting down meanwhile, the shard is handed off as any.
   */
  void declined(HandOffDeclined declined) {
    String shardId = declined.shardId();
    if (!tracker.acceptsDecline(shardId, declined.region(), declined.handOffId())) {
      out.report(new CoordinatorNotice.HandOffAnswerIgnored(declined, tracker.get(shardId)));
      return;
    }
    out.cancelTimer(new CoordinatorTimer.HandOffTimeout(shardId));
    tracker.ended(shardId);
    placement.declined(shardId);
    announce(new ShardHome(shardId, declined.region(), term));
    if (tracker.shuttingDown().contains(declined.region())) {
      start(shardId);
    }
    endRound();
  }

  /**
   * The region is shutting down: all its shards are handed off, and it takes no new ones.
   *
   * @return whether it was not known to be shutting down before
   */
  boolean shutDown(ActorRef<Object> region) {
    List<String> shards = writes().decided().regions().get(region);
    if (shards == null) {
      return false;
    }
    boolean first = tracker.shutDown(region);
    if (first) {
      out.report(new CoordinatorNotice.RegionShuttingDown(region.path(), List.copyOf(shards)));
    }
    List<CoordinatorEvent> unused = placement.moveUntouchedFrom(view.get(), region);
    if (!unused.isEmpty()) {
      out.report(new CoordinatorNotice.MovingUnused(region.path(), unused.size() / 2));
      store.persist(unused, () -> { });
    }
    List.copyOf(writes().decided().regions().getOrDefault(region, List.of())).forEach(this::start);
    return first;
  }

  /** The shard stopped at its old home: if that ends a hand-off, its next home is stored and announced. */
  void stopped(ShardStopped stopped) {
    String shardId = stopped.shardId();
    ActorRef<Object> home = writes().decided().shards().get(shardId);
    // A hand-off this coordinator did not start (its predecessor did) still completes here, as
    // long as the shard's recorded home is the region reporting it.
    if (!tracker.accepts(shardId, stopped.region(), stopped.handOffId(), home)) {
      out.report(new CoordinatorNotice.HandOffAnswerIgnored(stopped, tracker.get(shardId)));
      return;
    }
    out.cancelTimer(new CoordinatorTimer.HandOffTimeout(shardId));
    Set<ActorRef<Object>> waiting = tracker.waitingFor(shardId);
    boolean unstarted = tracker.isIfUnstarted(shardId);
    Placement.Moved moved = placement.afterHandOff(view.get(), shardId, stopped.region(),
        waiting.isEmpty() ? stopped.region() : waiting.iterator().next());
    ActorRef<Object> next = moved.next();
    out.report(new CoordinatorNotice.ShardStoppedAt(shardId, stopped.region().path(),
        next == null ? null : next.path()));
    store.persist(moved.events(), () -> {
      Set<ActorRef<Object>> asked = tracker.ended(shardId);
      Set<ActorRef<Object>> toldNewHome = HandOffAudience.toldNewHome(registered(), tracker.shuttingDown(), asked);
      if (next != null && !next.equals(writes().stored().shards().get(shardId))) {
        // A later decision in the same write replaced the next home (it was gone meanwhile): no
        // region hears of a home the store does not hold; those who asked get what it holds.
        askAgain(shardId, asked);
      } else if (next != null && unstarted) {
        // Nobody started it: its new home starts it on its first message, as one told up front.
        ShardHomes told = new ShardHomes(Map.of(shardId, next), term);
        toldNewHome.forEach(r -> out.send(r, told));
      } else if (next != null) {
        ShardHome nextHome = new ShardHome(shardId, next, term);
        toldNewHome.forEach(r -> out.send(r, nextHome));
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
      out.report(new CoordinatorNotice.HandOffGivenUp(shardId, gaveUp.owner().path(), timeout));
      if (gaveUp.owner().equals(writes().decided().shards().get(shardId))) {
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
      out.cancelTimer(new CoordinatorTimer.HandOffTimeout(shardId));
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
    everyone().forEach(r -> out.send(r, home));
  }

  /** The requests that waited for a hand-off to end are handled again, after the current input. */
  private void askAgain(String shardId, Set<ActorRef<Object>> asked) {
    asked.forEach(r -> askAgain.accept(new GetShardHome(shardId, r)));
  }

  /** Who takes part in a hand-off: see {@link HandOffAudience#participants}. */
  private Set<ActorRef<Object>> everyone() {
    Map<ActorRef<Object>, List<String>> homes = writes().decided().regions();
    return HandOffAudience.participants(registered(), tracker.shuttingDown(),
        r -> !homes.getOrDefault(r, List.of()).isEmpty() || !tracker.ownedBy(r).isEmpty());
  }

  /** Every registered region and proxy, in the state's order. */
  private Set<ActorRef<Object>> registered() {
    Set<ActorRef<Object>> registered = new LinkedHashSet<>(writes().decided().regions().keySet());
    registered.addAll(writes().decided().proxies());
    return registered;
  }

  private void endRound() {
    if (tracker.isEmpty()) {
      roundEnded.run();
    }
  }
}
