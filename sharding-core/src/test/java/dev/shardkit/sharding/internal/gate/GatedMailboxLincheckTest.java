package dev.shardkit.sharding.internal.gate;

import dev.shardkit.sharding.internal.LincheckScenario;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.ActorPath;
import org.apache.pekko.actor.ActorPaths;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ScalaActorRef;
import org.apache.pekko.dispatch.Envelope;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * The delivery gate under concurrent closing, opening, pauses and delivery, explored thread
 * interleaving by thread interleaving: the real {@link DeliveryGate} and an entity's real
 * {@link GatedMailbox.Queue}, with a gate keeper closing and opening the gate, the pause detector
 * ticking (and the whole process pausing: the clock jumps by a lease), senders enqueueing and the
 * entity's dispatcher taking messages, each on its own thread.
 *
 * <p>What is checked:
 *
 * <ul>
 *   <li><b>No delivery through a closed gate</b>, as linearizability against {@link Spec}: every
 *       {@code take} (one {@code dequeue} of the entity's dispatcher) hands the entity a message
 *       exactly when the gate is open at some instant of the call. So a take that starts after
 *       {@code close()} returned and ends before {@code open()} began hands over nothing; one that
 *       overlaps a closing or an opening may go either way. After a pause the gate counts as
 *       closed at once (its lease has expired), before the ticker has closed it. The queue is
 *       filled beyond what the takes can empty, so a take's result depends on the gate alone.
 *   <li><b>Held messages are neither lost nor doubled</b> (validated after every run): what was
 *       taken followed by what still waits is, per sender, exactly what it sent, in its order.
 *   <li><b>No one sleeps through the opening</b>: if the last take found the gate closed and the
 *       gate is open now, the mailbox's actor was woken after that take began.
 * </ul>
 */
@Param(name = "sender", gen = ThreadIdGen.class)
public class GatedMailboxLincheckTest {

  /** More than the takes of any scenario: the queue never runs dry. */
  private static final int FILLED = 8;
  /** Thread ids are below this (the scenario's threads, and the threads of its parts before and after). */
  private static final int SENDERS = 8;

  /** A message: the {@code seq}-th of {@code sender}; sender -1 filled the queue up front. */
  record Msg(int sender, int seq) {}

  private static final long LEASE = 100;

  /** The monotonic clock: it moves only when the whole process was paused. */
  private final AtomicLong clock = new AtomicLong();
  private final DeliveryGate gate = new DeliveryGate(clock::get, LEASE);
  private final long since = gate.now();
  private final Owner owner = new Owner();
  private final GatedMailbox.Queue queue = new GatedMailbox.Queue(gate, owner);
  private final int[] sent = new int[SENDERS];
  /** Written by the entity's thread only. */
  private final List<Object> taken = new ArrayList<>();
  private boolean lastTakeParked;
  private int wakesBeforeLastPark;

  public GatedMailboxLincheckTest() {
    for (int i = 0; i < FILLED; i++) {
      queue.enqueue(owner, Envelope.apply(new Msg(-1, i), owner));
    }
  }

  @Operation(nonParallelGroup = "keeper")
  public boolean close() {
    return gate.close();
  }

  @Operation(nonParallelGroup = "keeper")
  public boolean open() {
    return gate.open(since);
  }

  /** The whole process stops for a lease and goes on: only the clock shows it. */
  @Operation(nonParallelGroup = "ticker")
  public void pause() {
    clock.addAndGet(LEASE);
  }

  /** The pause detector's tick: true if it found the node paused. */
  @Operation(nonParallelGroup = "ticker")
  public boolean tick() {
    return gate.tick() >= 0;
  }

  @Operation(nonParallelGroup = "entity")
  public boolean take() {
    int wakesBefore = owner.wakes.get();
    Envelope next = queue.dequeue();
    if (next == null) {
      lastTakeParked = true;
      wakesBeforeLastPark = wakesBefore;
      return false;
    }
    lastTakeParked = false;
    taken.add(next.message());
    return true;
  }

  @Operation
  public void send(@Param(name = "sender") int sender) {
    queue.enqueue(owner, Envelope.apply(new Msg(sender, sent[sender]++), owner));
  }

  @Validate
  public void heldMessagesAreKeptAndParkedMailboxesWoken() {
    if (lastTakeParked && gate.isOpen() && owner.wakes.get() == wakesBeforeLastPark) {
      throw new IllegalStateException("the gate is open, but the mailbox that parked on it was never woken");
    }
    // Read what waits without losing it: take it all out, then put it back in order.
    List<Envelope> waiting = new ArrayList<>();
    for (Envelope e = queue.poll(); e != null; e = queue.poll()) {
      waiting.add(e);
    }
    waiting.forEach(queue::add);
    List<Object> all = new ArrayList<>(taken);
    waiting.forEach(e -> all.add(e.message()));
    int[] next = new int[SENDERS + 1];
    for (Object m : all) {
      Msg msg = (Msg) m;
      if (msg.seq() != next[msg.sender() + 1]++) {
        throw new IllegalStateException("sender " + msg.sender() + "'s messages lost, doubled or reordered: " + all);
      }
    }
    for (int s = 0; s < SENDERS; s++) {
      if (next[s + 1] != sent[s]) {
        throw new IllegalStateException("sender " + s + " sent " + sent[s] + " but " + next[s + 1] + " arrived: "
            + all);
      }
    }
    if (next[0] != FILLED) {
      throw new IllegalStateException("messages waiting before the run were lost or doubled: " + all);
    }
  }

  /**
   * The gate as a sequential object: what each operation returns when the operations run one at a
   * time. A pause expires the lease only once the ticker has run (before, the lease never
   * expires); the ticker then closes the gate, and a gate that saw a pause stays closed for the
   * confirmations asked before it (here: all of them).
   */
  public static final class Spec {
    private boolean closed;
    private boolean ticked;
    private boolean expired;
    private boolean pauseSeen;

    public boolean close() {
      boolean was = !closed;
      closed = true;
      return was;
    }

    public boolean open() {
      if (!closed || expired || pauseSeen) {
        return false;
      }
      closed = false;
      return true;
    }

    public void pause() {
      expired = ticked;
    }

    public boolean tick() {
      boolean paused = expired;
      if (paused) {
        pauseSeen = true;
        closed = true;
      }
      ticked = true;
      expired = false;
      return paused;
    }

    public boolean take() {
      return !closed && !expired;
    }

    public void send(int sender) {
    }
  }

  @Test
  void modelChecking() {
    new ModelCheckingOptions()
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(2)
        .actorsAfter(1)
        .iterations(6 * LincheckScenario.scale())
        .invocationsPerIteration(25 * LincheckScenario.scale())
        .sequentialSpecification(Spec.class)
        // The races that matter, explored on every run: taking while the gate closes or opens,
        // a take that parks while the gate opens, sending meanwhile, and taking across a pause
        // while the ticker runs and the keeper tries to open.
        .addCustomScenario(LincheckScenario.of(GatedMailboxLincheckTest.class)
            .thread("take", "take").thread("close", "open").thread("send:2").build())
        .addCustomScenario(LincheckScenario.of(GatedMailboxLincheckTest.class).initially("close")
            .thread("take").thread("open").build())
        .addCustomScenario(LincheckScenario.of(GatedMailboxLincheckTest.class).initially("close", "take")
            .thread("send:0", "take").thread("open", "close").build())
        .addCustomScenario(LincheckScenario.of(GatedMailboxLincheckTest.class).initially("tick")
            .thread("take", "take").thread("pause", "tick").thread("open").build())
        .check(GatedMailboxLincheckTest.class);
  }

  /** The entity's actor, as its mailbox's queue sees it: only told {@link GatedMailbox.Wake}, and counts it. */
  // ActorRef.tell casts its receiver to ScalaActorRef.
  private static final class Owner extends ActorRef implements ScalaActorRef {
    private static final ActorPath PATH = ActorPaths.fromString("pekko://test/user/entity");
    // The keeper's opening and the ticker's renewal both wake.
    final AtomicInteger wakes = new AtomicInteger();

    @Override
    public ActorPath path() {
      return PATH;
    }

    @Override
    public void $bang(Object message, ActorRef sender) {
      if (message == GatedMailbox.Wake.INSTANCE) {
        wakes.incrementAndGet();
      }
    }

    @Override
    public boolean isTerminated() {
      return false;
    }
  }
}
