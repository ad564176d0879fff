package dev.shardkit.sharding.internal.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.internal.gate.DeliveryGate.State;
import dev.shardkit.sharding.internal.gate.GateEffect.Answer;
import dev.shardkit.sharding.internal.gate.GateEffect.Ask;
import dev.shardkit.sharding.internal.gate.GateEffect.CancelRetry;
import dev.shardkit.sharding.internal.gate.GateEffect.CloseGate;
import dev.shardkit.sharding.internal.gate.GateEffect.DownGate;
import dev.shardkit.sharding.internal.gate.GateEffect.Notify;
import dev.shardkit.sharding.internal.gate.GateEffect.Report;
import dev.shardkit.sharding.internal.gate.GateEffect.StartRetry;
import dev.shardkit.sharding.internal.gate.GateEffect.TryOpenGate;
import dev.shardkit.sharding.internal.gate.GateEffect.Watch;
import dev.shardkit.sharding.internal.gate.GateInput.Membership.Kind;
import dev.shardkit.sharding.internal.gate.GateKeeper.GateChanged;
import dev.shardkit.sharding.internal.gate.GateProtocol.ConfirmMember;
import dev.shardkit.sharding.internal.gate.GateProtocol.MemberConfirmed;
import dev.shardkit.sharding.internal.gate.MembershipCheck.Status;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;

/** The gate keeper's decisions, input by input: its effects are checked, nothing is carried out. */
class GateMachineTest {
  @RegisterExtension
  static final TestRefs refs = new TestRefs();

  private static final long MS = 1_000_000L;
  private static final Duration RETRY = Duration.ofSeconds(1);
  private static final Duration THRESHOLD = Duration.ofSeconds(2);

  private GateMachine machine;
  private ActorRef<Object> subscriber;

  /** The keeper on test node {@code n}. */
  private static ActorRef<Object> keeper(int n) {
    return ActorRefResolver.get(refs.testKit().system()).resolveActorRef(TestRefs.node(n) + "/system/shardkit-gate");
  }

  private static String address(int n) {
    return TestRefs.node(n).toString();
  }

  private static MembershipCheck.Member member(int n, Status status) {
    return new MembershipCheck.Member(address(n), 100 + n, status);
  }

  /** Node 0's view: its own status, the others' (node n, status) pairs, and who is unreachable. */
  private static MembershipCheck.View view(Status self, Set<Integer> unreachable, Object... others) {
    Map<String, MembershipCheck.Member> map = new LinkedHashMap<>();
    for (int i = 0; i < others.length; i += 2) {
      MembershipCheck.Member m = member((Integer) others[i], (Status) others[i + 1]);
      map.put(m.address(), m);
    }
    Set<String> out = new LinkedHashSet<>();
    unreachable.forEach(n -> out.add(address(n)));
    return new MembershipCheck.View(member(0, self), map, out);
  }

  private static GateInput.Membership event(MembershipCheck.View view, Kind kind) {
    return new GateInput.Membership(view, kind, view.self().status(), Departure.ShutdownReason.NONE);
  }

  private static final MembershipCheck.View THREE_OTHERS_UP =
      view(Status.UP, Set.of(), 1, Status.UP, 2, Status.UP, 3, Status.UP);

  private static ConfirmMember question(long round) {
    return new ConfirmMember(round, 100, keeper(0));
  }

  private static GateInput.Confirmed confirmed(long round, int from, boolean current) {
    return new GateInput.Confirmed(new MemberConfirmed(round, keeper(from), current));
  }

  private List<GateEffect> handle(GateInput input, long now) {
    return List.copyOf(machine.handle(input, now));
  }

  private List<GateEffect> handle(GateInput input) {
    return handle(input, 0);
  }

  @BeforeEach
  void newMachine() {
    machine = new GateMachine(keeper(0), address(0), 100, RETRY, THRESHOLD);
    subscriber = refs.local();
  }

  /** A machine in a cluster of four, all Up, with one subscriber. */
  private void upAmongThree() {
    handle(event(THREE_OTHERS_UP, Kind.OTHER));
    assertEquals(List.of(new Watch(subscriber)), handle(new GateInput.Subscribe(subscriber)));
  }

  private static StartRetry startRetry(List<GateEffect> effects) {
    return effects.stream().filter(StartRetry.class::isInstance).map(StartRetry.class::cast).findFirst().orElseThrow();
  }

  @Test
  void aPauseClosesTheGateWarnsTellsTheSubscribersAndAsksEveryMemberInService() {
    upAmongThree();
    List<GateEffect> effects = handle(new GateInput.Paused(3_000 * MS), 5_000 * MS);
    long retry = startRetry(effects).generation();
    assertEquals(List.of(new CloseGate(),
        new Report(new GateNotice.Closed(new GateNotice.PausedFor(3_000 * MS, 2_000))),
        new Notify(List.of(subscriber), GateChanged.CLOSED),
        new StartRetry(retry, RETRY),
        new Ask(List.of(address(1), address(2), address(3)), question(1))), effects);
    Report report = (Report) effects.get(1);
    assertEquals(Level.WARN, report.notice().level());
    assertEquals("Deliveries to this node's entities wait until the other members confirm that it is still a member: "
        + "this node was paused for 3000 ms (longer than the pause threshold of 2000 ms: a long garbage-collection "
        + "pause, a frozen VM or process), so the cluster may have downed it meanwhile", report.notice().render());
    assertEquals(State.CLOSED, machine.state());
  }

  @Test
  void aMajorityOfCurrentConfirmationsOpensTheGateFromTheRoundsStart() {
    upAmongThree();
    handle(new GateInput.Paused(3_000 * MS), 5_000 * MS);
    assertEquals(List.of(), handle(confirmed(1, 1, true)), "one of three is no majority");
    assertEquals(List.of(), handle(confirmed(1, 2, false)), "nor is a second from a view that may be old");
    assertEquals(List.of(new TryOpenGate(5_000 * MS)), handle(confirmed(1, 3, true)));

    List<GateEffect> opened = handle(new GateInput.GateOpenResult(true), 5_250 * MS);
    assertEquals(List.of(new CancelRetry(), new Report(new GateNotice.Reopened(3, 250)),
        new Notify(List.of(subscriber), GateChanged.OPENED)), opened);
    assertEquals("3 of the other members confirmed that this node is still a member, 250 ms after its deliveries "
        + "stopped; deliveries to its entities go on", ((Report) opened.get(1)).notice().render());
    assertEquals(State.OPEN, machine.state());
  }

  @Test
  void everyMemberConfirmingFromAnOldViewOpensTheGateToo() {
    upAmongThree();
    handle(new GateInput.Paused(3_000 * MS), 0);
    handle(confirmed(1, 1, false));
    handle(confirmed(1, 2, false));
    assertEquals(List.of(new TryOpenGate(0)), handle(confirmed(1, 3, false)));
  }

  @Test
  void aGateThatRefusesToOpenStaysClosedAndTheRetryAsksAgain() {
    upAmongThree();
    long retry = startRetry(handle(new GateInput.Paused(3_000 * MS), 7)).generation();
    handle(confirmed(1, 1, true));
    handle(confirmed(1, 2, true));
    assertEquals(List.of(), handle(new GateInput.GateOpenResult(false)), "paused again since the round began");
    assertEquals(State.CLOSED, machine.state());

    assertEquals(List.of(new Ask(List.of(address(1), address(2), address(3)), question(1)), new TryOpenGate(7)),
        handle(new GateInput.RetryFired(retry)));
  }

  @Test
  void anotherPauseStartsANewRoundInWhichEarlierAnswersDoNotCount() {
    upAmongThree();
    handle(new GateInput.Paused(3_000 * MS), 0);
    handle(confirmed(1, 1, true));
    List<GateEffect> again = handle(new GateInput.Paused(4_000 * MS), 9);
    assertEquals(List.of(new CloseGate(),
        new Report(new GateNotice.AskingAgain(new GateNotice.PausedFor(4_000 * MS, 2_000))),
        new Ask(List.of(address(1), address(2), address(3)), question(2))), again,
        "no second warning, notice or timer");
    assertEquals(Level.INFO, ((Report) again.get(1)).notice().level());
    assertEquals(List.of(), handle(confirmed(1, 2, true)), "an answer to the first round");
    handle(confirmed(2, 2, true));
    assertEquals(List.of(new TryOpenGate(9)), handle(confirmed(2, 3, true)),
        "node 1's answer of the first round is not counted: two of three");
  }

  @Test
  void aSingleNodeHasNobodyToAskAndOpensAtOnce() {
    handle(event(view(Status.UP, Set.of()), Kind.OTHER));
    List<GateEffect> effects = handle(new GateInput.Paused(3_000 * MS), 11);
    assertEquals(new TryOpenGate(11), effects.get(effects.size() - 1));
    assertTrue(effects.stream().noneMatch(Ask.class::isInstance), effects.toString());
    assertEquals(List.of(new CancelRetry(), new Report(new GateNotice.Reopened(0, 0))),
        handle(new GateInput.GateOpenResult(true), 11));
  }

  @Test
  void itOpensOnlyAGateItClosedItself() {
    // A gate closed from outside the machine (tests close it directly): no round, nothing to open.
    upAmongThree();
    assertEquals(List.of(), handle(event(view(Status.UP, Set.of(), 1, Status.UP), Kind.OTHER)));
    assertEquals(List.of(), handle(confirmed(0, 1, true)));
  }

  @Test
  void fewerVotersAfterAClusterEventMayBeEnough() {
    upAmongThree();
    handle(new GateInput.Paused(3_000 * MS), 3);
    assertEquals(List.of(), handle(confirmed(1, 1, true)));
    assertEquals(List.of(new TryOpenGate(3)),
        handle(event(view(Status.UP, Set.of(), 1, Status.UP, 2, Status.DOWN, 3, Status.EXITING), Kind.OTHER)),
        "node 1 is the only voter left");
  }

  @Test
  void beingSeenUnreachableClosesTheGate() {
    upAmongThree();
    List<GateEffect> effects = handle(event(THREE_OTHERS_UP, Kind.SEEN_UNREACHABLE));
    assertEquals(new CloseGate(), effects.get(0));
    assertEquals(new Report(new GateNotice.Closed(new GateNotice.SeenUnreachable())), effects.get(1));
    assertEquals("Deliveries to this node's entities wait until the other members confirm that it is still a member: "
        + "other members see this node as unreachable, and may down it", ((Report) effects.get(1)).notice().render());
  }

  @Test
  void aStaleRetryIsIgnored() {
    upAmongThree();
    long retry = startRetry(handle(new GateInput.Paused(3_000 * MS))).generation();
    handle(confirmed(1, 1, true));
    handle(confirmed(1, 2, true));
    handle(new GateInput.GateOpenResult(true));
    assertEquals(List.of(), handle(new GateInput.RetryFired(retry)), "cancelled when the gate opened");
    long next = startRetry(handle(new GateInput.Paused(3_000 * MS))).generation();
    assertEquals(List.of(), handle(new GateInput.RetryFired(retry)), "an earlier timer's firing");
    assertEquals(1, handle(new GateInput.RetryFired(next)).size());
  }

  @Test
  void aDownedNodeClosesItsGateForGoodWarnsAndHearsNothingMore() {
    upAmongThree();
    List<GateEffect> effects = handle(event(view(Status.DOWN, Set.of(), 1, Status.UP), Kind.DOWNED));
    GateNotice.Out out = new GateNotice.Out(new Departure.Verdict(false, "was downed"));
    assertEquals(List.of(new DownGate(), new CancelRetry(), new Report(out),
        new Notify(List.of(subscriber), GateChanged.DOWN)), effects);
    assertEquals(Level.WARN, out.level());
    assertTrue(out.render().startsWith("This node was downed and is no longer a member of the cluster"), out.render());

    assertEquals(List.of(), handle(new GateInput.Paused(5_000 * MS)), "a node that is out never asks to come back");
    assertEquals(List.of(), handle(event(view(Status.REMOVED, Set.of()), Kind.REMOVED)));
    assertEquals(List.of(), handle(new GateInput.ConfirmAsked(new ConfirmMember(1, 101, keeper(1)), false)),
        "nor confirms anyone");
    ActorRef<Object> late = refs.local();
    assertEquals(List.of(new Watch(late), new Notify(List.of(late), GateChanged.DOWN)),
        handle(new GateInput.Subscribe(late)));
  }

  @Test
  void aNodeThatWasAskedToLeaveLeftOnPurpose() {
    upAmongThree();
    handle(event(view(Status.LEAVING, Set.of(), 1, Status.UP), Kind.OTHER));
    List<GateEffect> effects = handle(new GateInput.Membership(view(Status.REMOVED, Set.of()), Kind.REMOVED,
        Status.EXITING, Departure.ShutdownReason.CLUSTER_LEAVING));
    GateNotice.Out out = new GateNotice.Out(
        new Departure.Verdict(true, "left on purpose (it was asked to leave the cluster)"));
    assertEquals(new Report(out), effects.get(2));
    assertEquals(Level.INFO, out.level());
  }

  @Test
  void aNodeRemovedOnItsWayOutLeftOnPurposeEvenIfItNeverSawItselfLeaving() {
    upAmongThree();
    List<GateEffect> effects = handle(new GateInput.Membership(view(Status.REMOVED, Set.of()), Kind.REMOVED,
        Status.EXITING, Departure.ShutdownReason.NONE));
    assertEquals(Level.INFO, ((Report) effects.get(2)).notice().level());
  }

  @Test
  void aClusterShutDownByTheActorSystemIsALeaveOnPurpose() {
    upAmongThree();
    List<GateEffect> effects = handle(new GateInput.Membership(THREE_OTHERS_UP, Kind.SHUTTING_DOWN, Status.UP,
        Departure.ShutdownReason.ACTOR_SYSTEM_TERMINATE));
    assertEquals(new Report(new GateNotice.Out(new Departure.Verdict(true,
        "left on purpose (ActorSystem.terminate() ran its coordinated shutdown)"))), effects.get(2));
    assertEquals(List.of(), handle(new GateInput.ConfirmAsked(new ConfirmMember(1, 101, keeper(1)), false)),
        "a node whose cluster shut down is out, whatever it last heard of itself");
  }

  @Test
  void aNodeQuarantinedAndThenRemovedWasPutOut() {
    upAmongThree();
    List<GateEffect> closing = handle(new GateInput.Quarantined(address(2)));
    assertEquals(new Report(new GateNotice.Closed(new GateNotice.QuarantinedBy(address(2)))), closing.get(1));
    List<GateEffect> effects = handle(new GateInput.Membership(view(Status.REMOVED, Set.of()), Kind.REMOVED,
        Status.UP, Departure.ShutdownReason.NONE));
    assertEquals(new Report(new GateNotice.Out(new Departure.Verdict(false,
        "was removed after another member quarantined it"))), effects.get(2));
  }

  @Test
  void aClosedGateWhoseNodeTurnsOutRemovedGoesDown() {
    upAmongThree();
    handle(new GateInput.Paused(3_000 * MS));
    // The retry finds the node out before any answer came.
    List<GateEffect> effects = handle(event(view(Status.DOWN, Set.of(), 1, Status.UP), Kind.OTHER));
    assertEquals(new DownGate(), effects.get(0));
    assertEquals(new Report(new GateNotice.Out(new Departure.Verdict(false, "was downed"))), effects.get(2));
  }

  @Test
  void beforeItFirstJoinsTheNodeIsNotOut() {
    // Pekko reports a node that has not joined yet as removed.
    handle(event(view(Status.REMOVED, Set.of()), Kind.OTHER));
    List<GateEffect> effects = handle(new GateInput.Paused(3_000 * MS), 4);
    assertTrue(effects.stream().noneMatch(DownGate.class::isInstance), effects.toString());
    assertEquals(new TryOpenGate(4), effects.get(effects.size() - 1), "nobody to ask");
  }

  @Test
  void itConfirmsAReachableMemberOfTheSameIncarnationSayingWhetherItsOwnGateIsOpen() {
    handle(event(view(Status.UP, Set.of(3), 1, Status.UP, 2, Status.JOINING, 3, Status.UP, 4, Status.DOWN),
        Kind.OTHER));
    assertEquals(List.of(new Answer(keeper(1), new MemberConfirmed(7, keeper(0), true))),
        handle(new GateInput.ConfirmAsked(new ConfirmMember(7, 101, keeper(1)), true)));
    assertEquals(List.of(new Answer(keeper(2), new MemberConfirmed(8, keeper(0), false))),
        handle(new GateInput.ConfirmAsked(new ConfirmMember(8, 102, keeper(2)), false)), "a joining one too");
    assertEquals(List.of(), handle(new GateInput.ConfirmAsked(new ConfirmMember(7, 999, keeper(1)), true)),
        "another incarnation");
    assertEquals(List.of(), handle(new GateInput.ConfirmAsked(new ConfirmMember(7, 103, keeper(3)), true)),
        "unreachable");
    assertEquals(List.of(), handle(new GateInput.ConfirmAsked(new ConfirmMember(7, 104, keeper(4)), true)), "downed");
    assertEquals(List.of(), handle(new GateInput.ConfirmAsked(new ConfirmMember(7, 105, keeper(5)), true)),
        "unknown");
  }

  @Test
  void aSubscriberHearsOfAClosedGateAtOnceAndNothingOnceItIsGone() {
    upAmongThree();
    handle(new GateInput.Paused(3_000 * MS));
    ActorRef<Object> late = refs.local();
    assertEquals(List.of(new Watch(late), new Notify(List.of(late), GateChanged.CLOSED)),
        handle(new GateInput.Subscribe(late)));
    assertEquals(List.of(), handle(new GateInput.Subscribe(late)), "subscribed once");
    assertEquals(List.of(), handle(new GateInput.SubscriberGone(subscriber)));
    handle(confirmed(1, 1, true));
    handle(confirmed(1, 2, true));
    assertEquals(new Notify(List.of(late), GateChanged.OPENED), handle(new GateInput.GateOpenResult(true)).get(2));
  }

  @Test
  void votersAreAskedInTheSameOrderWhateverTheOrderTheyJoinedIn() {
    handle(event(view(Status.UP, Set.of(), 3, Status.UP, 1, Status.UP, 2, Status.LEAVING, 4, Status.JOINING),
        Kind.OTHER));
    List<GateEffect> effects = handle(new GateInput.Paused(3_000 * MS));
    assertEquals(new Ask(List.of(address(1), address(2), address(3)), question(1)), effects.get(effects.size() - 1));
  }
}
