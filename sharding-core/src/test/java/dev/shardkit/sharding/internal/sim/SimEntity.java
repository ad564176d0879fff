package dev.shardkit.sharding.internal.sim;

import java.util.ArrayDeque;

/**
 * One incarnation of an entity in the simulation: a mailbox handled one message at a time, each
 * taking a drawn processing time, on its node's clock. It processes only while its node's
 * delivery gate is open (the gated mailbox); a stop request waits in the mailbox behind what came
 * before it, as the entity's stop message does.
 */
final class SimEntity {
  /** The stop request in a mailbox. */
  static final Object STOP = new Object() {
    @Override
    public String toString() {
      return "Stop";
    }
  };

  final String id;
  final int node;
  final int incarnation;
  final SimShardHost shard;
  final long started;
  final ArrayDeque<Object> mailbox = new ArrayDeque<>();
  boolean busy;
  boolean terminated;
  boolean passivating;
  /** Started by a shard that was handing off (one more incarnation for held messages): outside the limit. */
  boolean forHandOff;
  /** Why it ended by its own doing (stopped or failed), null if it did not. */
  SimLedger.Cause endedBy;
  long lastProcessed = -1;

  SimEntity(String id, int node, int incarnation, SimShardHost shard, long started) {
    this.id = id;
    this.node = node;
    this.incarnation = incarnation;
    this.shard = shard;
    this.started = started;
  }

  @Override
  public String toString() {
    return "SimEntity(" + id + "#" + incarnation + "@n" + node + ")";
  }
}
