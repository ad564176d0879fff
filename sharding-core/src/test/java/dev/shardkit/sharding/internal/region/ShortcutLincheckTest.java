package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.internal.LincheckScenario;
import dev.shardkit.sharding.internal.delivery.Outbox;
import dev.shardkit.sharding.internal.region.RoutingTable.Home;
import dev.shardkit.sharding.internal.region.RoutingTable.Local;
import dev.shardkit.sharding.internal.region.RoutingTable.Remote;
import dev.shardkit.sharding.internal.util.ChunkedHashMap;
import dev.shardkit.sharding.internal.util.MessageBuffers;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.pekko.actor.ActorPath;
import org.apache.pekko.actor.ActorPaths;
import org.apache.pekko.actor.typed.ActorRef;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;
import static org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt.forClasses;

/**
 * The caller-thread shortcut across its path switches, explored thread interleaving by thread
 * interleaving: senders tell one shared {@link EntityRefImpl} (so its remembered home races too)
 * through the real {@link RegionHandle}, into the real {@link Outbox} of a remote home or a local
 * shard's mailbox, while the region, on a thread of its own, switches the shard's path as the
 * region machine's effects do, on the real {@link RegionRouting}:
 *
 * <ul>
 *   <li>{@code regionStep}: routes the next slow-path message and marks it routed (a Tell or an
 *       Offer, then Routed);
 *   <li>{@code homeKnown}: the shard gets its next home (a local shard, a remote region, another
 *       local shard): what was held for it is sent, then the table is published;
 *   <li>{@code handOff}: a hand-off begins: the table without the shard is published, and a
 *       quiet check is due;
 *   <li>{@code quietCheck}: if no caller is inside the shortcut for the shard's stripe, the old
 *       route is declared closed: the old home gets its hand-off marker (the owner's shard its
 *       HandOff, a remote owner the marker behind its outbox), and nothing may reach it after.
 * </ul>
 *
 * <p>Validated after every run, with nothing in flight: every message is in exactly one place, and
 * reading the places in the order their messages reach the entity (each old home up to its
 * marker, then the current home, then what the region holds, then the region's mailbox) gives each
 * sender's messages in the order it told them, none missing, none twice, and none behind a marker.
 */
@Param(name = "sender", gen = ThreadIdGen.class)
public class ShortcutLincheckTest {
  private static final String SHARD = "s1";
  /** Thread ids are below this (the scenario's threads, and the threads of its parts before and after). */
  private static final int SENDERS = 8;
  /** What a home gets when its route is closed: a shard's HandOff, or a remote owner's marker. */
  private static final Object MARKER = "marker";

  /** The {@code seq}-th message of {@code sender}. */
  record Msg(int sender, int seq) {}

  private enum Phase { NO_HOME, HOME, CLOSING }

  private final Queue<Object> regionMailbox = new ConcurrentLinkedQueue<>();
  private final RegionHandle handle = new RegionHandle(new SerializabilityCheck(Map.of(Msg.class, Optional.empty())));
  private final EntityRefImpl<Msg> ref;
  private final RegionRouting routing = new RegionRouting(1_000);
  private final Queue<Object> shardA = new ConcurrentLinkedQueue<>();
  private final Outbox toB = new Outbox(new Recorder("regionB", new ConcurrentLinkedQueue<>()), 1_000);
  private final Queue<Object> shardC = new ConcurrentLinkedQueue<>();
  /** The homes the shard gets, one after the other. */
  private final List<Home> homes = List.of(new Local(new Recorder("shardA", shardA)),
      new Remote(toB.destination(), toB), new Local(new Recorder("shardC", shardC)));
  private final int[] sent = new int[SENDERS];
  // The region's own state: its thread only.
  private Phase phase = Phase.NO_HOME;
  private int homesGiven;
  private int dropped;

  public ShortcutLincheckTest() {
    handle.attach(new Recorder("region", regionMailbox));
    ref = new EntityRefImpl<>(EntityTypeKey.create(Msg.class, "t"), "e", SHARD, handle, null);
  }

  @Operation
  public void send(@Param(name = "sender") int sender) {
    ref.tell(new Msg(sender, sent[sender]++));
  }

  @Operation(nonParallelGroup = "region")
  public void regionStep() {
    if (regionMailbox.poll() instanceof RegionHandle.ViaRegion via) {
      route(via.deliver(), false);
      handle.routed(via);
    }
  }

  @Operation(nonParallelGroup = "region")
  public void homeKnown() {
    if (phase != Phase.NO_HOME || homesGiven == homes.size()) {
      return;
    }
    routing.home(SHARD, homes.get(homesGiven++));
    routing.release(SHARD).forEach(d -> route(d, true));
    handle.publish(routing.table());
    phase = Phase.HOME;
  }

  @Operation(nonParallelGroup = "region")
  public void handOff() {
    if (phase != Phase.HOME) {
      return;
    }
    routing.noHome(SHARD);
    handle.publish(routing.table());
    phase = Phase.CLOSING;
  }

  @Operation(nonParallelGroup = "region")
  public void quietCheck() {
    if (phase != Phase.CLOSING || !handle.shortcutsQuiet(SHARD)) {
      return;
    }
    Home old = homes.get(homesGiven - 1);
    if (old instanceof Local local) {
      local.shard().tell(MARKER);
    } else {
      ((Remote) old).outbox().offerAlways(MARKER);
    }
    phase = Phase.NO_HOME;
  }

  private void route(Deliver deliver, boolean admitted) {
    RegionRouting.Route route = routing.route(deliver);
    if (route instanceof RegionRouting.ToShard toShard) {
      toShard.shard().tell(deliver);
    } else if (route instanceof RegionRouting.ToRegion toRegion) {
      if (admitted) {
        toRegion.home().outbox().offerAlways(deliver);
      } else if (!toRegion.home().outbox().offer(deliver)) {
        dropped++;
      }
    } else if (route instanceof RegionRouting.Refused) {
      dropped++;
    }
  }

  @Validate
  public void eachSendersMessagesArriveOnceAndInOrder() {
    if (dropped > 0) {
      throw new IllegalStateException(dropped + " message(s) dropped");
    }
    List<Object> arrival = new ArrayList<>();
    for (int h = 0; h < homesGiven; h++) {
      List<Object> got = received(homes.get(h));
      boolean closed = h < homesGiven - 1 || phase == Phase.NO_HOME;
      int marker = got.indexOf(MARKER);
      if (closed ? marker != got.size() - 1 : marker >= 0) {
        throw new IllegalStateException("home " + h + " got messages after its route was closed: " + got);
      }
      got.stream().filter(m -> m != MARKER).forEach(arrival::add);
    }
    // What the region holds, read by taking it out and putting it back in front.
    List<Deliver> held = routing.release(SHARD);
    routing.handBack(held);
    arrival.addAll(held);
    regionMailbox.forEach(via -> arrival.add(((RegionHandle.ViaRegion) via).deliver()));

    int[] next = new int[SENDERS];
    for (Object m : arrival) {
      Msg msg = (Msg) ((Deliver) m).message();
      if (msg.seq() != next[msg.sender()]++) {
        throw new IllegalStateException("sender " + msg.sender() + "'s messages lost, doubled or reordered: "
            + arrival);
      }
    }
    for (int s = 0; s < SENDERS; s++) {
      if (next[s] != sent[s]) {
        throw new IllegalStateException("sender " + s + " told " + sent[s] + ", " + next[s] + " are on their way: "
            + arrival);
      }
    }
  }

  private List<Object> received(Home home) {
    if (home instanceof Local local) {
      return new ArrayList<>(((Recorder) local.shard()).received);
    }
    Outbox outbox = ((Remote) home).outbox();
    List<Object> got = new ArrayList<>();
    for (Object m = outbox.poll(); m != null; m = outbox.poll()) {
      got.add(m);
    }
    got.forEach(outbox::offerAlways);
    return got;
  }

  @Test
  void modelChecking() {
    new ModelCheckingOptions()
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(2)
        .actorsAfter(0)
        .addGuarantee(forClasses(ShortcutLincheckTest::regionOnly).allMethods().ignore())
        .addGuarantee(forClasses(ConcurrentLinkedQueue.class.getName()).allMethods().treatAsAtomic())
        .iterations(5 * LincheckScenario.scale())
        .invocationsPerIteration(30 * LincheckScenario.scale())
        // The switches that matter, explored on every run: a home learnt while a slow-path
        // message waits; a hand-off while callers are inside the shortcut; a local home handed
        // to a remote one and on.
        .addCustomScenario(LincheckScenario.of(ShortcutLincheckTest.class)
            .thread("send:0", "send:0").thread("homeKnown", "regionStep").build())
        .addCustomScenario(LincheckScenario.of(ShortcutLincheckTest.class).initially("homeKnown")
            .thread("send:0", "send:0").thread("handOff", "quietCheck", "regionStep").thread("send:2").build())
        .addCustomScenario(LincheckScenario.of(ShortcutLincheckTest.class)
            .initially("homeKnown", "send:0", "handOff", "quietCheck")
            .thread("send:0", "send:0").thread("homeKnown", "regionStep", "handOff", "quietCheck").build())
        .check(ShortcutLincheckTest.class);
  }

  /**
   * Code that only the region's thread runs, or that reads immutable values: no other thread can
   * interleave with it, so it is run without looking for switch points inside.
   */
  private static boolean regionOnly(String className) {
    return className.startsWith(RoutingTable.class.getName()) || className.startsWith(RegionRouting.class.getName())
        || className.startsWith(MessageBuffers.class.getName()) || className.startsWith(ChunkedHashMap.class.getName())
        || className.startsWith("scala.");
  }

  /** A mailbox: it only keeps what it is told, in order, from any thread. */
  private static final class Recorder implements ActorRef<Object> {
    // Parsed once: a run builds its recorders anew for every interleaving.
    private static final Map<String, ActorPath> PATHS = Map.of("region", path("region"), "regionB", path("regionB"),
        "shardA", path("shardA"), "shardC", path("shardC"));
    private final ActorPath path;
    final Queue<Object> received;

    Recorder(String name, Queue<Object> received) {
      this.path = PATHS.get(name);
      this.received = received;
    }

    @Override
    public void tell(Object message) {
      received.add(message);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <U> ActorRef<U> narrow() {
      return (ActorRef<U>) this;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <U> ActorRef<U> unsafeUpcast() {
      return (ActorRef<U>) this;
    }

    private static ActorPath path(String name) {
      return ActorPaths.fromString("pekko://test/user/" + name);
    }

    @Override
    public ActorPath path() {
      return path;
    }

    @Override
    public int compareTo(ActorRef<?> other) {
      return path.compareTo(other.path());
    }
  }
}
