package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a shard that failed hands to its next incarnation: the messages it held for entities that
 * were not active (starting, passivating, backed off, waiting for room, the store or the node's
 * gate), each entity's in the order they arrived; whether it was handing off; its share of the
 * active-entity limit, with how many shares the shard actor has heard (the region counts the
 * shares it told the actor, whichever incarnation took them). The next incarnation takes them while
 * it starts, before anything from its mailbox, so that no held message is lost and none overtakes
 * an older one. Each incarnation also gets its number, which sets its requests to the
 * remember-entities store apart from those of the incarnations before it, whose answers may still
 * arrive. One per shard actor, outliving its incarnations; used only on the shard's own thread.
 *
 * <p>Internal API: public for shardkit's simulation tests, which restart shard machines as the
 * shard actor does; not for applications, and it may change in any release.
 */
@InternalApi
public final class ShardCarryOver {

  /**
   * What the next incarnation starts with.
   *
   * @param incarnation 1 for the shard actor's first incarnation, one more for each after it
   */
  public record Taken(Map<String, List<Object>> held, boolean handingOff, int entityLimit, int limitsHeard,
      int incarnation) {
    /** How many messages are held, over all entities. */
    public int messages() {
      return held.values().stream().mapToInt(List::size).sum();
    }
  }

  private Map<String, List<Object>> held = Map.of();
  private boolean handingOff;
  private int entityLimit;
  private int limitsHeard;
  private int incarnations;

  /** @param entityLimit the first incarnation's share of the active-entity limit */
  public ShardCarryOver(int entityLimit) {
    this.entityLimit = entityLimit;
  }

  /**
   * The failing incarnation's last word, as it is restarted.
   *
   * @param last its {@link ShardMachine#carryOver}; the messages are kept per entity in this order
   */
  public void keep(Taken last) {
    this.held = new LinkedHashMap<>(last.held());
    this.handingOff = last.handingOff();
    this.entityLimit = last.entityLimit();
    this.limitsHeard = last.limitsHeard();
  }

  /** For the incarnation that starts now; what was kept is handed over once. */
  public Taken take() {
    Taken taken = new Taken(held, handingOff, entityLimit, limitsHeard, ++incarnations);
    held = Map.of();
    handingOff = false;
    return taken;
  }
}
