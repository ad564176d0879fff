package dev.shardkit.sharding.internal.sim;

/**
 * The links between simulated nodes: each ordered pair of nodes is a FIFO channel with a drawn
 * delay (mostly a few milliseconds, rarely a spike of up to 300 ms) that never lets a message
 * overtake an earlier one on the same channel. A message is lost when either end is down, or the
 * two are on different sides of a partition, when it is sent or when it would arrive (what was in
 * flight is lost with the association), and when it finds its channel's queue full (Artery's
 * outbound queue per association: what is sent and not yet taken by the receiver, which takes
 * nothing while it is frozen).
 */
final class SimNetwork {

  /** Whether a message can pass from one node to another now. */
  interface Reach {
    boolean connected(int from, int to);

    /** Runs {@code delivery} now, or once node {@code n} runs again if it is paused. */
    void whenRunning(int n, Runnable delivery);
  }

  static final int MAX_NODES = 64;

  private final SimScheduler scheduler;
  private final SimRng rng;
  private final Reach reach;
  /** The arrival time of the last message on each channel, by {@code from * MAX_NODES + to}. */
  private final long[] lastArrival = new long[MAX_NODES * MAX_NODES];
  /** What each channel holds, sent and not yet delivered or lost, by {@code from * MAX_NODES + to}. */
  private final int[] queued = new int[MAX_NODES * MAX_NODES];
  private int queueLimit = Integer.MAX_VALUE;
  private long sent;
  private long lost;
  private long lostToFullQueues;

  SimNetwork(SimScheduler scheduler, SimRng rng, Reach reach) {
    this.scheduler = scheduler;
    this.rng = rng;
    this.reach = reach;
  }

  /** Each channel between two nodes holds at most {@code limit} messages; one sent to a full queue is lost. */
  void queueLimit(int limit) {
    this.queueLimit = limit;
  }

  /**
   * Sends from node {@code from} to node {@code to}: {@code deliver} runs on arrival, if it arrives.
   *
   * @return false if it was lost to a full queue at once (it may still be lost later, unseen)
   */
  boolean send(int from, int to, Runnable deliver) {
    return send(from, to, deliver, false);
  }

  /**
   * Sends a system message (a death watch's notification): on the same channel, in order, but never
   * lost to a full queue, as Artery sends system messages on its control stream and redelivers them
   * until they are acknowledged or the association is quarantined.
   */
  void sendSystem(int from, int to, Runnable deliver) {
    send(from, to, deliver, true);
  }

  private boolean send(int from, int to, Runnable deliver, boolean system) {
    sent++;
    if (!reach.connected(from, to)) {
      lost++;
      return true;
    }
    int channel = from * MAX_NODES + to;
    if (!system && from != to && queued[channel] >= queueLimit) {
      lost++;
      lostToFullQueues++;
      return false;
    }
    long delay;
    if (from == to) {
      delay = rng.millis("net.local", 0.01, 0.1);
    } else if (rng.chance("net.spike", 0.005)) {
      delay = rng.millis("net.spike.delay", 50, 300);
    } else {
      delay = rng.millis("net.delay", 0.3, 4);
    }
    long arrival = Math.max(scheduler.now() + delay, lastArrival[channel]);
    lastArrival[channel] = arrival;
    queued[channel]++;
    scheduler.at(arrival, () -> {
      if (reach.connected(from, to)) {
        reach.whenRunning(to, () -> {
          queued[channel]--;
          deliver.run();
        });
      } else {
        queued[channel]--;
        lost++;
      }
    });
    return true;
  }

  long lostToFullQueues() {
    return lostToFullQueues;
  }

  long sent() {
    return sent;
  }

  long lost() {
    return lost;
  }
}
