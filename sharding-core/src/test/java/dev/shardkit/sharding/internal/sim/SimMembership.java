package dev.shardkit.sharding.internal.sim;

import dev.shardkit.sharding.internal.membership.ClusterChange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.UniqueAddress;

/**
 * The cluster's membership as Pekko reports it, node by node. The true membership is decided by
 * the leader of the majority (a leader action every second, only while no member is unreachable
 * but those marked down): Joining → Up, Leaving → Exiting once the node's region has shut down,
 * Exiting and Down → Removed. Each node has a view that catches up with the truth by gossip after
 * 50 ms – 1.2 s (only where gossip reaches: a node cut off by a partition sees nothing change but
 * its peers becoming unreachable); the view's changes are what the node hears, as
 * {@link ClusterChange}s in the order Pekko would publish them.
 *
 * <p>Failure detection: a crashed node, or one across a partition, is marked unreachable after a
 * drawn detection time; if it still is after {@code stable-after}, the split-brain resolver keeps
 * the majority: the majority marks the others down (and removes them), and the others down
 * themselves and shut down. A partition healed before that is seen reachable again after
 * 0.5–1.5 s. A node that thaws is seen reachable again view by view ({@link #returning}): each
 * observer's own detector first, then its record by gossip, and the leader's view, on which the
 * resolver decides, may be among the last, so some nodes see the node reachable before the Down
 * decided on the leader's older view reaches them. Leaves are graceful (the node's region shuts
 * down first). The caller keeps faults one at a time within a majority
 * ({@link #healthyMajorityAfter}).
 *
 * <p>The truth's unreachable set is the leader's view of reachability.
 */
final class SimMembership {

  /** What the rest of the simulation hears. */
  interface Listener {
    /** Node {@code node}'s view changed. */
    void changed(int node, ClusterChange change);

    /** The node's process ends (crashed, downed itself, or left). */
    void ended(int node);

    /** A node began to leave: its region shuts down. */
    void leaving(int node);

    /** A frozen node runs again after {@code nanos}: this is the first thing it does. */
    void thawed(int node, long nanos);
  }

  private static final Set<String> NO_ROLES = Set.of();

  private final SimScheduler scheduler;
  private final SimRng rng;
  private final long stableAfter;
  private Listener listener;

  /** The truth, in the order the members joined. */
  private final Map<Integer, ClusterChange.Node> truth = new LinkedHashMap<>();
  private final Set<Integer> unreachable = new LinkedHashSet<>();
  private final Set<Integer> exitReady = new LinkedHashSet<>();
  /** The members removed, as their last change shows them; looked up only. */
  private final Map<Integer, ClusterChange.Node> removedMembers = new HashMap<>();
  private final Map<Integer, View> views = new HashMap<>();
  private final Set<Integer> minority = new TreeSet<>();
  private final Set<Integer> alive = new TreeSet<>();
  /** Frozen nodes (a long pause: the process runs nothing), with when each thaws; looked up only. */
  private final Map<Integer, Long> frozenUntil = new HashMap<>();
  private int nextNode;
  private int upNumbers;

  /** One node's view: the members it knows of, and those it sees unreachable. */
  private static final class View {
    final Map<Integer, ClusterChange.Node> members = new LinkedHashMap<>();
    final Set<Integer> unreachable = new LinkedHashSet<>();
    /** The members it saw removed; looked up only. */
    final Set<Integer> removed = new java.util.HashSet<>();
    /**
     * Members this view sees reachable again, from every observer's record it has, while the
     * leader's view still has them unreachable: gossip of the leader's older view does not undo
     * that (each observer's record is newer than the leader's copy of it). Looked up only.
     */
    final Set<Integer> returned = new java.util.HashSet<>();
    long lastGossip;
  }

  SimMembership(SimScheduler scheduler, SimRng rng, long stableAfter) {
    this.scheduler = scheduler;
    this.rng = rng;
    this.stableAfter = stableAfter;
  }

  void listener(Listener listener) {
    this.listener = listener;
  }

  /** The first nodes, Up at once, each seeing all; numbered from 0. */
  List<Integer> form(int nodes) {
    List<Integer> formed = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      int n = nextNode++;
      truth.put(n, node(n, MemberStatus.up(), ++upNumbers));
      alive.add(n);
      views.put(n, new View());
      formed.add(n);
    }
    for (int n : formed) {
      views.get(n).members.putAll(truth);
    }
    scheduler.after(1_000_000_000L, this::leaderTick);
    return formed;
  }

  /** The members as node {@code n} sees them now, as a subscription starts with them. */
  ClusterChange.Members snapshot(int n) {
    View view = views.get(n);
    Set<UniqueAddress> unreachableIds = new LinkedHashSet<>();
    view.unreachable.forEach(u -> unreachableIds.add(id(u)));
    return new ClusterChange.Members(new ArrayList<>(view.members.values()), unreachableIds);
  }

  // ---- actions

  /** A new node joins (with a new address); it is Up at a leader action once the cluster converged. */
  int join() {
    int n = nextNode++;
    alive.add(n);
    views.put(n, new View());
    truth.put(n, node(n, MemberStatus.joining(), Integer.MAX_VALUE));
    gossip();
    return n;
  }

  void leave(int n) {
    ClusterChange.Node member = truth.get(n);
    if (member != null && member.status() == MemberStatus.up()) {
      truth.put(n, with(member, MemberStatus.leaving()));
      gossip();
      listener.leaving(n);
    }
  }

  /** The node's region has shut down: the node may exit. */
  void exitReady(int n) {
    exitReady.add(n);
  }

  void crash(int n) {
    if (!alive.remove(n)) {
      return;
    }
    listener.ended(n);
    scheduler.after(rng.millis("fd.detect", 2000, 4000), () -> detect(Set.of(n)));
  }

  /**
   * Node {@code n} runs nothing for {@code nanos} (a long pause): what reaches it waits, and the
   * others see it unreachable and, if it stays so for {@code stable-after}, down it; it learns that
   * when it thaws, and downs itself a little later.
   */
  void freeze(int n, long nanos) {
    long thaw = scheduler.now() + nanos;
    frozenUntil.put(n, thaw);
    scheduler.after(rng.millis("fd.detect", 2000, 4000), () -> detect(Set.of(n)));
    scheduler.at(thaw, () -> {
      frozenUntil.remove(n);
      if (alive.contains(n)) {
        listener.thawed(n, nanos);
      }
      returning(n);
    });
  }

  /**
   * A thawed node is heard again, observer by observer: each running observer's own failure
   * detector marks it reachable after 0.5–1.5 s, and that record reaches each other view by gossip
   * later. A view sees the node reachable once it has every observer's new record, so views see
   * it at different times, and the leader's view, on which the split-brain resolver decides, may
   * be among the last: a node some members already see reachable (and whose gate a majority may
   * confirm) can still be downed by a decision taken on the leader's older view.
   */
  private void returning(int n) {
    List<Integer> observers = new ArrayList<>();
    for (int o : alive) {
      if (o != n && truth.containsKey(o) && !minority.contains(o) && views.get(o).members.containsKey(n)) {
        observers.add(o);
      }
    }
    if (observers.isEmpty()) {
      return;
    }
    long now = scheduler.now();
    long[] own = new long[observers.size()];
    for (int i = 0; i < own.length; i++) {
      own[i] = now + rng.millis("fd.reachable", 500, 1500);
    }
    int leader = observers.get(0);
    for (int v : observers) {
      long at = 0;
      for (int i = 0; i < own.length; i++) {
        at = Math.max(at, own[i] + (observers.get(i) == v ? 0 : rng.millis("gossip.record", 50, 1200)));
      }
      if (v == leader) {
        scheduler.at(at, () -> {
          ClusterChange.Node member = truth.get(n);
          if (member != null && member.status() != MemberStatus.down() && !frozenUntil.containsKey(n)
              && unreachable.remove(n)) {
            gossip();
          }
        });
      } else {
        scheduler.at(at, () -> whenRunning(v, () -> seenReachable(v, n)));
      }
    }
  }

  /** View {@code v} has every observer's record of {@code n} reachable, before the leader's view does. */
  private void seenReachable(int v, int n) {
    View view = views.get(v);
    if (!alive.contains(v) || frozenUntil.containsKey(n) || !unreachable.contains(n) || !view.unreachable.remove(n)) {
      return;
    }
    view.returned.add(n);
    listener.changed(v, new ClusterChange.ReachabilityChanged(view.members.get(n), true));
  }

  /** When node {@code n} thaws; -1 if it is not frozen. */
  long thawAt(int n) {
    Long thaw = frozenUntil.get(n);
    return thaw == null ? -1 : thaw;
  }

  /** Runs {@code action} now, or when node {@code n} thaws if it is frozen: a frozen node handles nothing. */
  void whenRunning(int n, Runnable action) {
    long thaw = thawAt(n);
    if (thaw < 0) {
      action.run();
    } else {
      scheduler.at(thaw, () -> whenRunning(n, action));
    }
  }

  /** The nodes {@code cut} lose contact with the others for {@code nanos}. */
  void partition(Set<Integer> cut, long nanos) {
    minority.addAll(cut);
    Set<Integer> side = Set.copyOf(cut);
    scheduler.after(rng.millis("fd.detect", 2000, 4000), () -> {
      if (minority.containsAll(side)) {
        detect(side);
        for (int m : new TreeSet<>(side)) {
          if (alive.contains(m)) {
            View view = views.get(m);
            for (int other : new ArrayList<>(view.members.keySet())) {
              if (!side.contains(other) && view.unreachable.add(other)) {
                listener.changed(m, new ClusterChange.ReachabilityChanged(view.members.get(other), false));
              }
            }
          }
        }
      }
    });
    scheduler.after(nanos, () -> {
      minority.removeAll(side);
      scheduler.after(rng.millis("fd.reachable", 500, 1500), () -> {
        boolean changed = false;
        for (int m : new TreeSet<>(side)) {
          changed |= unreachable.remove(m);
        }
        if (changed) {
          gossip();
        }
        // The cut-off side hears its peers again, whatever the truth said meanwhile.
        for (int m : new TreeSet<>(side)) {
          if (alive.contains(m)) {
            sync(m);
          }
        }
      });
    });
  }

  private void detect(Set<Integer> subjects) {
    boolean changed = false;
    for (int s : new TreeSet<>(subjects)) {
      ClusterChange.Node member = truth.get(s);
      if (member != null && member.status() != MemberStatus.down()
          && (!alive.contains(s) || minority.contains(s) || frozenUntil.containsKey(s))) {
        changed |= unreachable.add(s);
        for (View view : views.values()) {
          view.returned.remove(s);
        }
      }
    }
    if (changed) {
      gossip();
      scheduler.after(stableAfter, () -> resolve(subjects));
    }
  }

  /** The split-brain resolver: the majority downs what is still unreachable; the cut-off nodes down themselves. */
  private void resolve(Set<Integer> subjects) {
    boolean changed = false;
    for (int s : new TreeSet<>(subjects)) {
      ClusterChange.Node member = truth.get(s);
      if (member != null && unreachable.contains(s)) {
        truth.put(s, with(member, MemberStatus.down()));
        changed = true;
        if (alive.contains(s)) {
          // A frozen node learns it was downed once it thaws, and takes a while to shut down.
          long at = frozenUntil.containsKey(s) ? frozenUntil.get(s) + rng.millis("sbr.thawed", 200, 2000)
              : scheduler.now() + rng.millis("sbr.selfdown", 0, 1000);
          scheduler.at(at, () -> {
            if (alive.remove(s)) {
              listener.ended(s);
            }
          });
        }
      }
    }
    if (changed) {
      gossip();
    }
  }

  private void leaderTick() {
    boolean converged = true;
    for (int u : unreachable) {
      ClusterChange.Node member = truth.get(u);
      if (member != null && member.status() != MemberStatus.down()) {
        converged = false;
      }
    }
    boolean changed = false;
    for (Map.Entry<Integer, ClusterChange.Node> e : new ArrayList<>(truth.entrySet())) {
      int n = e.getKey();
      ClusterChange.Node member = e.getValue();
      MemberStatus status = member.status();
      if (status == MemberStatus.down()) {
        truth.remove(n);
        unreachable.remove(n);
        removed(n, member);
        changed = true;
      } else if (!converged) {
        continue;
      } else if (status == MemberStatus.joining()) {
        truth.put(n, new ClusterChange.Node(id(n), MemberStatus.up(), NO_ROLES, ++upNumbers, "1.0.0"));
        changed = true;
      } else if (status == MemberStatus.leaving() && exitReady.contains(n)) {
        truth.put(n, with(member, MemberStatus.exiting()));
        changed = true;
      } else if (status == MemberStatus.exiting()) {
        truth.remove(n);
        removed(n, member);
        changed = true;
        // The node itself learns it was removed, and its process ends.
        scheduler.after(rng.millis("leave.end", 200, 800), () -> {
          if (alive.remove(n)) {
            listener.ended(n);
          }
        });
      }
    }
    if (changed) {
      gossip();
    }
    scheduler.after(1_000_000_000L, this::leaderTick);
  }

  private void removed(int n, ClusterChange.Node member) {
    removedMembers.put(n, with(member, MemberStatus.removed()));
  }

  /** Each node the leader reaches catches up with the truth after a gossip delay. */
  private void gossip() {
    for (int n : alive) {
      // A removed node is quarantined: it hears nothing more (it downs itself).
      if (minority.contains(n) || !truth.containsKey(n)) {
        continue;
      }
      View view = views.get(n);
      long at = Math.max(scheduler.now() + rng.millis("gossip", 50, 1200), view.lastGossip);
      view.lastGossip = at;
      scheduler.at(at, () -> whenRunning(n, () -> {
        if (alive.contains(n) && !minority.contains(n) && truth.containsKey(n)) {
          sync(n);
        }
      }));
    }
  }

  /** Node {@code n}'s view becomes the truth; each difference is a change it hears. */
  private void sync(int n) {
    View view = views.get(n);
    for (Map.Entry<Integer, ClusterChange.Node> e : truth.entrySet()) {
      if (!e.getValue().equals(view.members.get(e.getKey()))) {
        view.members.put(e.getKey(), e.getValue());
        listener.changed(n, new ClusterChange.MemberChanged(e.getValue()));
      }
    }
    for (int known : new ArrayList<>(view.members.keySet())) {
      if (!truth.containsKey(known)) {
        view.members.remove(known);
        view.unreachable.remove(known);
        view.removed.add(known);
        listener.changed(n, new ClusterChange.MemberChanged(removedMembers.get(known)));
      }
    }
    view.returned.removeIf(u -> !unreachable.contains(u));
    for (int u : unreachable) {
      if (view.members.containsKey(u) && !view.returned.contains(u) && view.unreachable.add(u)) {
        listener.changed(n, new ClusterChange.ReachabilityChanged(view.members.get(u), false));
      }
    }
    for (int u : new ArrayList<>(view.unreachable)) {
      if (!unreachable.contains(u)) {
        view.unreachable.remove(u);
        listener.changed(n, new ClusterChange.ReachabilityChanged(view.members.get(u), true));
      }
    }
  }

  // ---- queries

  boolean alive(int n) {
    return alive.contains(n);
  }

  Set<Integer> alive() {
    return alive;
  }

  /**
   * Whether a message passes between the two nodes: both alive, on the same side of any
   * partition, and neither has seen the other removed (a node quarantines what it removed, both
   * ways).
   */
  boolean connected(int from, int to) {
    return alive.contains(from) && alive.contains(to) && minority.contains(from) == minority.contains(to)
        && !views.get(to).removed.contains(from) && !views.get(from).removed.contains(to);
  }

  boolean cutOff(int n) {
    return minority.contains(n);
  }

  /** The member's status in the truth; null if it is not (or no longer) a member. */
  MemberStatus status(int n) {
    ClusterChange.Node member = truth.get(n);
    return member == null ? null : member.status();
  }

  /** The member's status in node {@code viewer}'s view; null if the viewer does not know it as a member. */
  MemberStatus statusIn(int viewer, int n) {
    ClusterChange.Node member = views.get(viewer).members.get(n);
    return member == null ? null : member.status();
  }

  /** Whether node {@code viewer}'s view has node {@code n} reachable (as far as it knows it). */
  boolean reachableIn(int viewer, int n) {
    return !views.get(viewer).unreachable.contains(n);
  }

  /** Whether node {@code viewer} saw node {@code n} removed. */
  boolean removedIn(int viewer, int n) {
    return views.get(viewer).removed.contains(n);
  }

  /**
   * The oldest member in node {@code viewer}'s view that is Up, or leaving but not yet exiting (as
   * the singleton manager ranks them); -1 if none.
   */
  int oldestIn(int viewer) {
    int oldest = -1;
    int oldestNumber = Integer.MAX_VALUE;
    for (Map.Entry<Integer, ClusterChange.Node> e : views.get(viewer).members.entrySet()) {
      MemberStatus s = e.getValue().status();
      if ((s == MemberStatus.up() || s == MemberStatus.leaving()) && e.getValue().upNumber() < oldestNumber) {
        oldest = e.getKey();
        oldestNumber = e.getValue().upNumber();
      }
    }
    return oldest;
  }

  /** Whether every member is reachable and none is joining, leaving, down or cut off: nothing is going on. */
  boolean calm() {
    if (!unreachable.isEmpty() || !minority.isEmpty() || !frozenUntil.isEmpty()) {
      return false;
    }
    for (ClusterChange.Node member : truth.values()) {
      if (member.status() != MemberStatus.up()) {
        return false;
      }
    }
    for (int n : truth.keySet()) {
      if (!alive.contains(n)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether no failure is in progress: every member is alive and reachable and no partition is
   * on (joins and leaves may be).
   */
  boolean noFailure() {
    if (!unreachable.isEmpty() || !minority.isEmpty() || !frozenUntil.isEmpty()) {
      return false;
    }
    for (int n : truth.keySet()) {
      if (!alive.contains(n)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether, with {@code more} more nodes failing, the Up, reachable, alive members would still
   * be a strict majority of the members: the resolver then keeps the side with the coordinator's
   * successor and the cluster goes on.
   */
  boolean healthyMajorityAfter(int more) {
    int members = truth.size();
    int healthy = 0;
    for (Map.Entry<Integer, ClusterChange.Node> e : truth.entrySet()) {
      int n = e.getKey();
      if (e.getValue().status() == MemberStatus.up() && alive.contains(n) && !unreachable.contains(n)
          && !minority.contains(n) && !frozenUntil.containsKey(n)) {
        healthy++;
      }
    }
    return healthy - more > members / 2;
  }

  /** The Up, alive members that are not cut off, in order of joining. */
  List<Integer> healthyUp() {
    List<Integer> up = new ArrayList<>();
    truth.forEach((n, member) -> {
      if (member.status() == MemberStatus.up() && alive.contains(n) && !minority.contains(n) && !unreachable.contains(n)
          && !frozenUntil.containsKey(n)) {
        up.add(n);
      }
    });
    return up;
  }

  static UniqueAddress id(int n) {
    return new UniqueAddress(SimRefs.address(n), n + 1L);
  }

  private static ClusterChange.Node node(int n, MemberStatus status, int upNumber) {
    return new ClusterChange.Node(id(n), status, NO_ROLES, upNumber, "1.0.0");
  }

  private static ClusterChange.Node with(ClusterChange.Node member, MemberStatus status) {
    return new ClusterChange.Node(member.id(), status, member.roles(), member.upNumber(), member.appVersion());
  }
}
