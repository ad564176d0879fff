package dev.shardkit.sharding.internal.delivery;

/**
 * The side of a link's outbox that the {@link LinkMachine} takes from: the messages handed over for
 * the destination, in order. In production an {@link Outbox}, which any thread may hand messages to;
 * in a simulation of the cluster, a queue that simulated callers fill.
 */
interface OutboxSource {

  /** The next waiting message, or null. */
  Object poll();

  /**
   * The link has taken out everything it will for now. Returns true if it must go on at once: a
   * message came in after its last look, and no wake-up was sent for it.
   */
  boolean idleAgain();

  /** How many messages wait. */
  int waiting();

  /** Refuses callers from now on: what the link takes out after this is all there will be. */
  void close();
}
