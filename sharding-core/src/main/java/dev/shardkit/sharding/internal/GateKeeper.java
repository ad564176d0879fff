package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.internal.DeliveryGate.State;
import dev.shardkit.sharding.internal.GateProtocol.ConfirmMember;
import dev.shardkit.sharding.internal.GateProtocol.MemberConfirmed;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.DeadLetterSuppression;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.RootActorPath;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.remote.artery.ThisActorSystemQuarantinedEvent;
import org.slf4j.Logger;

/**
 * The actor that keeps a node's {@link DeliveryGate}: one per node ({@code /system/shardkit-gate}).
 * It closes the gate when the node learns that it may have been left out of the cluster (it was
 * paused, others see it unreachable, a member quarantined it), asks the other members' keepers
 * whether they still count it as a member, and opens the gate when enough of them have said so
 * since ({@link MembershipCheck#mayOpen}); it closes it for good when the node is downed or removed,
 * and says so at INFO if the node left on purpose, with a warning if it was put out ({@link Departure}).
 * It answers the other keepers' questions too. The regions of the node subscribe to hear when the
 * gate closes (they hold messages for their own shards then), opens, or closes for good.
 */
final class GateKeeper {

  /** The keeper's name under {@code /system} on every node. */
  public static final String NAME = "shardkit-gate";

  /** Region → keeper: tell me of the gate's changes. Local only. */
  public record Subscribe(ActorRef<Object> subscriber) implements NoSerializationVerificationNeeded {}

  /**
   * Keeper → subscribers: the gate closed, opened, or closed for good (the node is out). Local
   * only. A region that stopped just before is told too (the keeper learns it only from the watch
   * that follows): not a dead letter to log.
   */
  public enum GateChanged implements NoSerializationVerificationNeeded, DeadLetterSuppression { CLOSED, OPENED, DOWN }

  /** Ticker → keeper: the node was paused this long. Local only. */
  record Paused(long nanos) implements NoSerializationVerificationNeeded {}

  private enum Retry implements NoSerializationVerificationNeeded { INSTANCE }

  private record SubscriberGone(ActorRef<Object> subscriber) implements NoSerializationVerificationNeeded {}

  private final ActorContext<Object> context;
  private final TimerScheduler<Object> timers;
  private final DeliveryGate gate;
  private final Duration pauseThreshold;
  private final Duration retryInterval;
  private final Cluster cluster;
  private final Logger log;
  private final Set<ActorRef<Object>> subscribers = new HashSet<>();
  /** Which closing of the gate the answers are for; answers to an earlier one do not count. */
  private long round;
  /** When this round began, on the gate's clock: a pause after it voids its answers. */
  private long roundStart;
  private long closedSince;
  /** Members that confirmed this node in this round: address → whether from a current view. */
  private final Map<String, Boolean> confirmed = new HashMap<>();
  /** The subscribers have been told that the gate closed, and not yet that it opened. */
  private boolean closedAnnounced;
  /** This node has been a member: before it joins, Pekko reports it as removed, which it is not. */
  private boolean wasMember;
  /** This node was seen Leaving or Exiting: it was asked to leave ({@link Departure}). */
  private boolean left;
  /** Another member quarantined this node: only one that is downed or unreachable is. */
  private boolean quarantined;

  private GateKeeper(ActorContext<Object> context, TimerScheduler<Object> timers, DeliveryGate gate,
      Duration pauseThreshold, Duration retryInterval) {
    this.context = context;
    this.timers = timers;
    this.gate = gate;
    this.pauseThreshold = pauseThreshold;
    this.retryInterval = retryInterval;
    this.cluster = Cluster.get(Adapter.toClassic(context.getSystem()));
    this.log = context.getLog();
  }

  /**
   * @param pauseThreshold the gate's lease, for the log
   * @param retryInterval how often a node whose gate is closed asks the others again
   */
  public static Behavior<Object> create(DeliveryGate gate, Duration pauseThreshold, Duration retryInterval) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
      org.apache.pekko.cluster.typed.Cluster.get(ctx.getSystem()).subscriptions()
          .tell(org.apache.pekko.cluster.typed.Subscribe.create(ctx.getSelf().<ClusterEvent.ClusterDomainEvent>narrow(),
              ClusterEvent.ClusterDomainEvent.class));
      Adapter.toClassic(ctx.getSystem()).eventStream()
          .subscribe(Adapter.toClassic(ctx.getSelf()), ThisActorSystemQuarantinedEvent.class);
      return new GateKeeper(ctx, timers, gate, pauseThreshold, retryInterval).behavior();
    }));
  }

  private Behavior<Object> behavior() {
    return Behaviors.receive(Object.class)
        .onMessage(Subscribe.class, this::onSubscribe)
        .onMessage(SubscriberGone.class, g -> {
          subscribers.remove(g.subscriber());
          return Behaviors.same();
        })
        .onMessage(Paused.class, p -> {
          closed("this node was paused for " + p.nanos() / 1_000_000 + " ms (longer than the pause threshold of "
              + pauseThreshold.toMillis() + " ms: a long garbage-collection pause, a frozen VM or process), so the "
              + "cluster may have downed it meanwhile");
          return Behaviors.same();
        })
        .onMessage(ThisActorSystemQuarantinedEvent.class, q -> {
          quarantined = true;
          closed("member " + q.remoteAddress().address() + " has quarantined this node");
          return Behaviors.same();
        })
        .onMessage(ClusterEvent.ClusterDomainEvent.class, this::onClusterEvent)
        .onMessage(ConfirmMember.class, this::onConfirmMember)
        .onMessage(MemberConfirmed.class, this::onMemberConfirmed)
        .onMessageEquals(Retry.INSTANCE, () -> {
          if (gate.state() == State.CLOSED) {
            ask();
            evaluate();
          }
          return Behaviors.same();
        })
        .build();
  }

  private Behavior<Object> onSubscribe(Subscribe s) {
    if (subscribers.add(s.subscriber())) {
      context.watchWith(s.subscriber(), new SubscriberGone(s.subscriber()));
      if (gate.state() == State.DOWN) {
        s.subscriber().tell(GateChanged.DOWN);
      } else if (closedAnnounced) {
        s.subscriber().tell(GateChanged.CLOSED);
      }
    }
    return Behaviors.same();
  }

  private Behavior<Object> onClusterEvent(ClusterEvent.ClusterDomainEvent event) {
    if (event instanceof ClusterEvent.MemberEvent m && isSelf(m.member()) && (leaving(m.member().status())
        || m instanceof ClusterEvent.MemberRemoved r && leaving(r.previousStatus()))) {
      left = true;
    }
    if (gate.state() == State.DOWN) {
      return Behaviors.same();
    }
    if (event instanceof ClusterEvent.MemberDowned d && isSelf(d.member())) {
      down("downed");
    } else if (event instanceof ClusterEvent.MemberRemoved r && isSelf(r.member())) {
      down("removed");
    } else if (event == ClusterEvent.ClusterShuttingDown$.MODULE$) {
      down("shut down");
    } else if (event instanceof ClusterEvent.ReachabilityChanged r
        && !r.reachability().isReachable(cluster.selfUniqueAddress())) {
      // Pekko's own events never say that this node is the unreachable one; the reachability
      // table that comes with its gossip does (observer by observer).
      closed("other members see this node as unreachable, and may down it");
    } else if (gate.state() == State.CLOSED) {
      // A member left, was downed or came back: fewer or other answers may be enough now.
      evaluate();
    }
    return Behaviors.same();
  }

  /** A status only a member that was asked to leave (or the whole cluster to shut down) passes through. */
  private static boolean leaving(MemberStatus s) {
    return s == MemberStatus.leaving() || s == MemberStatus.exiting() || s == MemberStatus.shuttingDown()
        || s == MemberStatus.shutDown();
  }

  private boolean isSelf(Member member) {
    return member.uniqueAddress().equals(cluster.selfUniqueAddress());
  }

  /** Starts a round of questions: the gate is (or stays) closed until enough answers to it come in. */
  private void closed(String reason) {
    if (gate.state() == State.DOWN) {
      return;
    }
    gate.close();
    round++;
    roundStart = gate.now();
    confirmed.clear();
    if (!closedAnnounced) {
      closedAnnounced = true;
      closedSince = roundStart;
      log.warn("Deliveries to this node's entities wait until the other members confirm that it is still a member: "
          + "{}", reason);
      subscribers.forEach(s -> s.tell(GateChanged.CLOSED));
      timers.startTimerWithFixedDelay(Retry.INSTANCE, retryInterval);
    } else {
      log.info("Asking the other members again whether this node is still a member: {}", reason);
    }
    ask();
    evaluate();
  }

  /** Asks every member whose answer counts. */
  private void ask() {
    Set<String> voters = MembershipCheck.voters(view());
    ConfirmMember question = new ConfirmMember(round, cluster.selfUniqueAddress().longUid(), context.getSelf());
    for (Member m : cluster.state().getMembers()) {
      if (voters.contains(m.address().toString())) {
        Adapter.toClassic(context).actorSelection(new RootActorPath(m.address(), "/").$div("system").$div(NAME))
            .tell(question, org.apache.pekko.actor.ActorRef.noSender());
      }
    }
  }

  private Behavior<Object> onMemberConfirmed(MemberConfirmed answer) {
    if (answer.round() == round && gate.state() == State.CLOSED) {
      confirmed.merge(answer.from().path().address().toString(), answer.current(), Boolean::logicalOr);
      evaluate();
    }
    return Behaviors.same();
  }

  private void evaluate() {
    // The keeper opens only a gate it closed itself, in a round it is asking for: a gate closed
    // directly (shardkit's own tests do) would otherwise open at the next cluster event of a node
    // that has nobody to ask.
    if (gate.state() != State.CLOSED || !closedAnnounced) {
      return;
    }
    MembershipCheck.View view = view();
    if (MembershipCheck.out(view)) {
      down(view.self().status() == MembershipCheck.Status.DOWN ? "downed" : "removed");
      return;
    }
    Set<String> current = new HashSet<>();
    confirmed.forEach((address, fresh) -> {
      if (fresh) {
        current.add(address);
      }
    });
    // The gate refuses if the node was paused after this round began: the ticker's report of that
    // pause starts the next round.
    if (MembershipCheck.mayOpen(view, current, confirmed.keySet()) && gate.open(roundStart)) {
      closedAnnounced = false;
      timers.cancel(Retry.INSTANCE);
      log.info("{} of the other members confirmed that this node is still a member, {} ms after its deliveries "
          + "stopped; deliveries to its entities go on", confirmed.size(), (gate.now() - closedSince) / 1_000_000);
      subscribers.forEach(s -> s.tell(GateChanged.OPENED));
    }
  }

  private void down(String how) {
    gate.down();
    timers.cancel(Retry.INSTANCE);
    // A node that left on purpose (every rolling restart) says so plainly; one put out warns.
    Departure.Verdict verdict = Departure.of(how,
        how.equals("downed") || cluster.selfMember().status() == MemberStatus.down(), quarantined, left,
        Departure.reason(CoordinatedShutdown.get(Adapter.toClassic(context.getSystem())).getShutdownReason()));
    String text = "This node {} and is no longer a member of the cluster: its entities process nothing more here; "
        + "the cluster starts them on other nodes";
    if (verdict.onPurpose()) {
      log.info(text, verdict.how());
    } else {
      log.warn(text, verdict.how());
    }
    subscribers.forEach(s -> s.tell(GateChanged.DOWN));
  }

  private Behavior<Object> onConfirmMember(ConfirmMember question) {
    Address asker = question.replyTo().path().address();
    if (MembershipCheck.confirms(view(), asker.toString(), question.uid())) {
      question.replyTo().tell(new MemberConfirmed(question.round(), context.getSelf(), gate.isOpen()));
    }
    return Behaviors.same();
  }

  /** This node's view of the cluster, as {@link MembershipCheck} takes it. */
  private MembershipCheck.View view() {
    var state = cluster.state();
    Map<String, MembershipCheck.Member> others = new HashMap<>();
    for (Member m : state.getMembers()) {
      if (!isSelf(m)) {
        others.put(m.address().toString(), member(m));
      }
    }
    Set<String> unreachable = new HashSet<>();
    state.getUnreachable().forEach(m -> unreachable.add(m.address().toString()));
    Member selfMember = cluster.selfMember();
    wasMember |= selfMember.status() != MemberStatus.removed();
    MembershipCheck.Status selfStatus = cluster.isTerminated() ? MembershipCheck.Status.REMOVED
        : !wasMember ? MembershipCheck.Status.JOINING : status(selfMember.status());
    MembershipCheck.Member self = new MembershipCheck.Member(cluster.selfAddress().toString(),
        cluster.selfUniqueAddress().longUid(), selfStatus);
    return new MembershipCheck.View(self, others, unreachable);
  }

  private static MembershipCheck.Member member(Member m) {
    return new MembershipCheck.Member(m.address().toString(), m.uniqueAddress().longUid(), status(m.status()));
  }

  private static MembershipCheck.Status status(MemberStatus s) {
    if (s == MemberStatus.joining()) {
      return MembershipCheck.Status.JOINING;
    } else if (s == MemberStatus.weaklyUp()) {
      return MembershipCheck.Status.WEAKLY_UP;
    } else if (s == MemberStatus.up()) {
      return MembershipCheck.Status.UP;
    } else if (s == MemberStatus.exiting()) {
      return MembershipCheck.Status.EXITING;
    } else if (s == MemberStatus.down()) {
      return MembershipCheck.Status.DOWN;
    } else if (s == MemberStatus.removed()) {
      return MembershipCheck.Status.REMOVED;
    }
    // Leaving, and the states of a whole-cluster shutdown: still in service.
    return MembershipCheck.Status.LEAVING;
  }
}
