package dev.shardkit.sharding.internal.sim;

/**
 * The links between simulated nodes: each ordered pair of nodes is a FIFO channel with a drawn
 * delay (mostly a few milliseconds, rarely a spike of up to 300 ms) that never lets a message
 * overtake an earlier one on the same channel. A message is lost when either end is down, or the
 * two are on different sides of a partition, when it is sent or when it would arrive (what was in
 * flight is lost with the association).
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
  private long sent;
  private long lost;

  SimNetwork(SimScheduler scheduler, SimRng rng, Reach reach) {
    this.scheduler = scheduler;
    this.rng = rng;
    this.reach = reach;
  }

  /** Sends from node {@code from} to node {@code to}: {@code deliver} runs on arrival, if it arrives. */
  void send(int from, int to, Runnable deliver) {
    sent++;
    if (!reach.connected(from, to)) {
      lost++;
      return;
    }
    long delay;
    if (from == to) {
      delay = rng.millis("net.local", 0.01, 0.1);
    } else if (rng.chance("net.spike", 0.005)) {
      delay = rng.millis("net.spike.delay", 50, 300);
    } else {
      delay = rng.millis("net.delay", 0.3, 4);
    }
    int channel = from * MAX_NODES + to;
    long arrival = Math.max(scheduler.now() + delay, lastArrival[channel]);
    lastArrival[channel] = arrival;
    scheduler.at(arrival, () -> {
      if (reach.connected(from, to)) {
        reach.whenRunning(to, deliver);
      } else {
        lost++;
      }
    });
  }

  long sent() {
    return sent;
  }

  long lost() {
    return lost;
  }
}
