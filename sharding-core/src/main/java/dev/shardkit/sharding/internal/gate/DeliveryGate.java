package dev.shardkit.sharding.internal.gate;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Whether this node may let its entities process messages now: the single-writer check that every
 * entity's mailbox makes before it hands over its next message, and a shard before it starts an
 * entity. Shared by every thread of the node; the check ({@link #isOpen}) is two volatile reads and
 * a clock read.
 *
 * <p>The gate is open only while this node is sure that the cluster still counts it as a member,
 * so that no other node can have started a second incarnation of its entities. It closes:
 * <ul>
 *   <li><b>by itself, when the node was paused</b>. A ticker renews a lease every fraction of
 *       the pause threshold ({@link #tick}); a check after a longer silence, on any thread, finds
 *       the lease expired. All of a JVM's threads stop together in a long garbage-collection pause,
 *       a frozen VM or container, or SIGSTOP; whichever runs first afterwards reads the monotonic
 *       clock, which kept running, and finds the gate closed before it delivers anything. Nothing
 *       has to run first for that to hold;
 *   <li>when the node learns that it is unreachable for others, or was quarantined ({@link #close});
 *   <li>for good when the node is downed or removed ({@link #down}).
 * </ul>
 * It opens again ({@link #open}) only when other members have confirmed, after it closed and with
 * no pause since, that they still count this node as a reachable member (see
 * {@link MembershipCheck}).
 *
 * <p>A mailbox (or shard) that finds the gate closed {@linkplain #park parks}, and is woken when
 * the gate opens, or when the ticker finds that a lease which looked expired to it was renewed
 * (the ticker read the clock just before it expired, so nothing was paused).
 */
@InternalApi
public final class DeliveryGate {

  /** Something that waits for the gate to open: told once, then forgotten. */
  public interface Parked {
    void wake();
  }

  /** The gate's state, apart from an expired lease (which closes an open gate for the readers). */
  public enum State { OPEN, CLOSED, DOWN }

  /** Before the ticker first runs the lease never expires: a node that never ticks is never paused. */
  private static final long UNLEASED = Long.MAX_VALUE / 4;

  private final LongSupplier clock;
  private final long leaseNanos;
  private volatile State state = State.OPEN;
  /** The ticker's last tick: while it is less than a lease ago and the state is OPEN, the gate is open. */
  private volatile long lastTick;
  /** When the ticker last found that the node had been paused; the clock's start value until then. */
  private long lastPauseSeen;
  private final Set<Parked> parked = ConcurrentHashMap.newKeySet();

  /**
   * @param clock a monotonic clock in nanoseconds ({@code System::nanoTime})
   * @param leaseNanos the pause threshold: silence longer than this closes the gate
   */
  public DeliveryGate(LongSupplier clock, long leaseNanos) {
    if (leaseNanos <= 0) {
      throw new IllegalArgumentException("the pause threshold must be positive, got " + leaseNanos + " ns");
    }
    this.clock = clock;
    this.leaseNanos = leaseNanos;
    long now = clock.getAsLong();
    this.lastTick = now + UNLEASED;
    this.lastPauseSeen = now - UNLEASED;
  }

  /** True if messages may be delivered to this node's entities now. */
  public boolean isOpen() {
    return state == State.OPEN && clock.getAsLong() - lastTick < leaseNanos;
  }

  public State state() {
    return state;
  }

  /**
   * The ticker's call, every fraction of the pause threshold. If the last tick was longer than the
   * threshold ago the node was paused: an open gate closes, and a closed one remembers it, so
   * that confirmations asked for before the pause cannot open it. Otherwise the lease is renewed,
   * and whoever parked on what looked like an expired lease is woken.
   *
   * @return the length of the pause in nanoseconds if there was one, else -1
   */
  public long tick() {
    List<Parked> toWake;
    synchronized (this) {
      long now = clock.getAsLong();
      long sinceLast = now - lastTick;
      lastTick = now;
      if (sinceLast >= leaseNanos) {
        lastPauseSeen = now;
        if (state == State.OPEN) {
          state = State.CLOSED;
        }
        return sinceLast;
      }
      toWake = state == State.OPEN ? takeParked() : List.of();
    }
    toWake.forEach(Parked::wake);
    return -1;
  }

  /** Closes an open gate; true if it was open (an expired lease counts as open here). */
  public synchronized boolean close() {
    if (state != State.OPEN) {
      return false;
    }
    state = State.CLOSED;
    return true;
  }

  /**
   * Opens a closed gate and wakes whoever parked, if the node has not been paused since
   * {@code confirmedSince}: the moment from which on the confirmations that allow it were asked
   * for. A pause that the ticker has not seen yet (its last tick is a lease ago) counts too.
   *
   * @return true if the gate opened
   */
  public boolean open(long confirmedSince) {
    List<Parked> toWake;
    synchronized (this) {
      long now = clock.getAsLong();
      if (state != State.CLOSED || now - lastTick >= leaseNanos || lastPauseSeen - confirmedSince >= 0) {
        return false;
      }
      state = State.OPEN;
      toWake = takeParked();
    }
    toWake.forEach(Parked::wake);
    return true;
  }

  /** Closes the gate for good: the node is no longer a member. */
  public synchronized void down() {
    state = State.DOWN;
    parked.clear();
  }

  /** The gate's clock. */
  public long now() {
    return clock.getAsLong();
  }

  /**
   * Waits for the gate to open: {@code who} is woken once it has (or the lease turns out not to
   * have expired). Returns true if the gate is still closed, so the caller must wait; false if it
   * has opened meanwhile (the caller goes on, and may be woken needlessly, which is harmless).
   */
  public boolean park(Parked who) {
    if (state == State.DOWN) {
      return true;
    }
    parked.add(who);
    if (isOpen()) {
      parked.remove(who);
      return false;
    }
    return true;
  }

  /** How many wait for the gate now. */
  public int parkedCount() {
    return parked.size();
  }

  private List<Parked> takeParked() {
    if (parked.isEmpty()) {
      return List.of();
    }
    List<Parked> taken = new ArrayList<>(parked);
    parked.removeAll(taken);
    return taken;
  }
}
