package dev.shardkit.sharding.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a shard that failed hands to its next incarnation: the messages it held for entities that
 * were not active (starting, passivating, backed off, waiting for room, the store or the node's
 * gate), each entity's in the order they arrived; whether it was handing off; and its share of
 * the active-entity limit, with how many shares the shard actor has heard (the region counts the
 * shares it told the actor, whichever incarnation took them). The next incarnation takes them while it starts, before anything from
 * its mailbox, so that no held message is lost and none overtakes an older one. One per shard
 * actor, outliving its incarnations; used only on the shard's own thread.
 */
final class ShardCarryOver {

  /** What the next incarnation starts with. */
  record Taken(Map<String, List<Object>> held, boolean handingOff, int entityLimit, int limitsHeard) {
    /** How many messages are held, over all entities. */
    int messages() {
      return held.values().stream().mapToInt(List::size).sum();
    }
  }

  private Map<String, List<Object>> held = Map.of();
  private boolean handingOff;
  private int entityLimit;
  private int limitsHeard;

  /** @param entityLimit the first incarnation's share of the active-entity limit */
  ShardCarryOver(int entityLimit) {
    this.entityLimit = entityLimit;
  }

  /**
   * The failing incarnation's last word, as it is restarted.
   *
   * @param held the messages held per entity, oldest first; kept in this order
   */
  void keep(Map<String, List<Object>> held, boolean handingOff, int entityLimit, int limitsHeard) {
    this.held = new LinkedHashMap<>(held);
    this.handingOff = handingOff;
    this.entityLimit = entityLimit;
    this.limitsHeard = limitsHeard;
  }

  /** For the incarnation that starts now; what was kept is handed over once. */
  Taken take() {
    Taken taken = new Taken(held, handingOff, entityLimit, limitsHeard);
    held = Map.of();
    handingOff = false;
    return taken;
  }
}
