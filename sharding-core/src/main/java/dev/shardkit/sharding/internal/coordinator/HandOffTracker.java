package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.jspecify.annotations.Nullable;

/**
 * The coordinator's hand-offs: the ones in progress (by shard, with the region the shard is
 * leaving and the hand-off's id), the ids of those given up, the regions waiting for the new home
 * of a shard being handed off, and the regions shutting down (they hand off all their shards and
 * take no new ones). Decides whether a {@code ShardStopped} ends a hand-off, including one that a
 * previous coordinator started, and whether a {@code HandOffDeclined} ends one that moves the shard
 * only if it never started (those are marked). Owned by the coordinator actor; not thread-safe.
 *
 * <p>Internal API: public for the benchmarks module's micro-benchmarks; not for applications, and
 * it may change in any release.
 */
@InternalApi
public final class HandOffTracker {

  /** A hand-off this coordinator started: the region the shard is leaving, and the hand-off's id. */
  record InProgress(ActorRef<Object> owner, int id) {}

  /** Only late answers to a given-up hand-off matter, and they come within seconds. */
  static final int GIVEN_UP_KEPT = 1024;

  private final IntSupplier ids;
  private final Map<String, InProgress> inProgress = new HashMap<>();
  private final Set<Integer> givenUp = new LinkedHashSet<>();
  private final Map<String, Set<ActorRef<Object>>> waiting = new HashMap<>();
  private final Set<ActorRef<Object>> shuttingDown = new HashSet<>();
  /** The hand-offs in progress that move their shard only if it never started. */
  private final Set<String> ifUnstarted = new HashSet<>();

  /**
   * @param ids the source of hand-off ids; random ones make it unlikely that a hand-off of a
   *     previous coordinator has the id of one of ours
   */
  public HandOffTracker(IntSupplier ids) {
    this.ids = ids;
  }

  /** Whether no hand-off is in progress. */
  boolean isEmpty() {
    return inProgress.isEmpty();
  }

  /** Whether the shard is being handed off by this coordinator. */
  public boolean inProgress(String shardId) {
    return inProgress.containsKey(shardId);
  }

  /** The hand-off of the shard in progress, or null. */
  InProgress get(String shardId) {
    return inProgress.get(shardId);
  }

  /** The shards being handed off; a read-only view. */
  Set<String> shards() {
    return Collections.unmodifiableSet(inProgress.keySet());
  }

  /**
   * Starts handing off a shard from its home.
   *
   * @return the hand-off's id
   * @throws IllegalStateException if the shard is being handed off already
   */
  public int start(String shardId, ActorRef<Object> owner) {
    if (inProgress.containsKey(shardId)) {
      throw new IllegalStateException(
          "shard [" + shardId + "] is being handed off already: " + inProgress.get(shardId));
    }
    int id = ids.getAsInt();
    inProgress.put(shardId, new InProgress(owner, id));
    return id;
  }

  /**
   * Starts handing off a shard from its home that moves only if it never started there.
   *
   * @return the hand-off's id
   * @throws IllegalStateException if the shard is being handed off already
   */
  public int startIfUnstarted(String shardId, ActorRef<Object> owner) {
    int id = start(shardId, owner);
    ifUnstarted.add(shardId);
    return id;
  }

  /** Whether the shard's hand-off in progress moves it only if it never started. */
  boolean isIfUnstarted(String shardId) {
    return ifUnstarted.contains(shardId);
  }

  /**
   * Whether the owner's answer that the shard runs at {@code region} ends its hand-off: only one
   * in progress, from that region, with that id, that moves the shard only if it never started.
   */
  boolean acceptsDecline(String shardId, ActorRef<Object> region, int handOffId) {
    return ifUnstarted.contains(shardId) && new InProgress(region, handOffId).equals(inProgress.get(shardId));
  }

  /**
   * Whether a shard's report that it stopped at {@code region} ends its hand-off: ours, if it is
   * the hand-off in progress (same region and id); or inherited from a previous coordinator, if
   * the id is not one we gave up, the shard's home is that region, and none of ours is in progress
   * for the shard or ours moves it from that same region.
   */
  public boolean accepts(String shardId, ActorRef<Object> region, int handOffId, ActorRef<Object> home) {
    InProgress current = inProgress.get(shardId);
    boolean ours = new InProgress(region, handOffId).equals(current);
    boolean inherited = current == null && !givenUp.contains(handOffId) && region.equals(home);
    // The owner finished a hand-off a previous coordinator started before it heard of ours (it
    // answers only one hand-off of a shard at a time): the shard stopped there all the same.
    boolean ownerFinishedAnother = current != null && current.owner().equals(region) && region.equals(home)
        && !givenUp.contains(handOffId);
    return ours || inherited || ownerFinishedAnother;
  }

  /**
   * The shard's hand-off is over (if this coordinator had one in progress).
   *
   * @return the regions that asked for its home meanwhile; they are forgotten here
   */
  public Set<ActorRef<Object>> ended(String shardId) {
    inProgress.remove(shardId);
    ifUnstarted.remove(shardId);
    Set<ActorRef<Object>> asked = waiting.remove(shardId);
    return asked == null ? Set.of() : asked;
  }

  /**
   * Gives the shard's hand-off up (it took too long): a late {@code ShardStopped} for it is not
   * accepted, and the regions waiting for its home are forgotten (they ask again).
   *
   * @return the hand-off given up, or null if none was in progress
   */
  @Nullable InProgress giveUp(String shardId) {
    InProgress gaveUp = inProgress.remove(shardId);
    if (gaveUp == null) {
      return null;
    }
    ifUnstarted.remove(shardId);
    givenUp.add(gaveUp.id());
    if (givenUp.size() > GIVEN_UP_KEPT) {
      givenUp.remove(givenUp.iterator().next());
    }
    waiting.remove(shardId);
    return gaveUp;
  }

  /** A region asked for the home of a shard being handed off: it hears it when the hand-off ends. */
  public void waitForHome(String shardId, ActorRef<Object> region) {
    waiting.computeIfAbsent(shardId, k -> new LinkedHashSet<>()).add(region);
  }

  /** The regions waiting for the shard's home, first asker first; a read-only view. */
  Set<ActorRef<Object>> waitingFor(String shardId) {
    return Collections.unmodifiableSet(waiting.getOrDefault(shardId, Set.of()));
  }

  /** The shards being handed off from {@code region}. */
  List<String> ownedBy(ActorRef<Object> region) {
    return inProgress.entrySet().stream().filter(e -> e.getValue().owner().equals(region)).map(Map.Entry::getKey)
        .toList();
  }

  /**
   * The region hands off all its shards before it stops, and takes no new ones.
   *
   * @return false if it was shutting down already
   */
  boolean shutDown(ActorRef<Object> region) {
    return shuttingDown.add(region);
  }

  /** The region is gone; it is no longer shutting down. */
  void regionGone(ActorRef<Object> region) {
    shuttingDown.remove(region);
  }

  /** The regions shutting down; a read-only view. */
  Set<ActorRef<Object>> shuttingDown() {
    return Collections.unmodifiableSet(shuttingDown);
  }
}
