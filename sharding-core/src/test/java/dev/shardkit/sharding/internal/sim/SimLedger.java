package dev.shardkit.sharding.internal.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Every traffic message's fate in one run, and the invariants about them: an incarnation of an
 * entity never processes while another one does (I2: no two incarnations' [started, last
 * processed] overlap), each sender's messages to an entity are processed in the order sent (I3),
 * none is processed twice (I4), and at the end each was processed, dropped with a reason (a
 * machine's {@code Drop} effect), or lost with a node that ended, and why (I5).
 *
 * <p>Where a message is, for the losses, is the node that holds it: the sender's until a region
 * elsewhere acknowledged the batch that carried it, then that region's node. A node that ends
 * loses what it holds.
 */
final class SimLedger {

  enum Fate { SENT, PROCESSED, DROPPED, LOST }

  /** Why a node's messages were lost. */
  enum Cause { CRASHED, DOWNED, LEFT, UNACKED_WINDOW, ENTITY_STOPPED, ENTITY_FAILED, DEAD_LETTER }

  private final List<SimMsg> messages = new ArrayList<>();
  private final List<Fate> fates = new ArrayList<>();
  private final List<Integer> location = new ArrayList<>();
  private final Map<Integer, String> why = new HashMap<>();
  /** The last sequence number processed per sender and entity, by {@code sender + "/" + entity}. */
  private final Map<String, Integer> lastSeq = new HashMap<>();
  /** Per entity, the incarnations that processed something, oldest first. */
  private final Map<String, List<SimEntity>> incarnations = new HashMap<>();
  private final Map<String, Integer> seqs = new HashMap<>();
  /** Messages a closed link sent on again with redelivery on: they may be processed twice. */
  private final Set<Integer> redelivered = new HashSet<>();
  private int repeated;
  private int processed;
  private int dropped;
  private int lost;
  /** Lost with a node other than their sender's. */
  private int lostFromOthers;

  int lostFromOthers() {
    return lostFromOthers;
  }

  SimMsg send(int sender, String entityId) {
    int seq = seqs.merge(sender + "/" + entityId, 1, Integer::sum);
    SimMsg m = new SimMsg(messages.size(), sender, entityId, seq);
    messages.add(m);
    fates.add(Fate.SENT);
    location.add(sender);
    return m;
  }

  int sent() {
    return messages.size();
  }

  int processedCount() {
    return processed;
  }

  int droppedCount() {
    return dropped;
  }

  int lostCount() {
    return lost;
  }

  Fate fate(SimMsg m) {
    return fates.get(m.id());
  }

  String why(SimMsg m) {
    return why.get(m.id());
  }

  /** Message {@code m} is held on {@code node} now. */
  void at(SimMsg m, int node) {
    if (fates.get(m.id()) == Fate.SENT) {
      location.set(m.id(), node);
    }
  }

  /** A closed link sends {@code m} on again (redelivery on): it may be processed a second time. */
  void redelivered(SimMsg m) {
    redelivered.add(m.id());
  }

  /** How many messages were processed again after a redelivery. */
  int repeated() {
    return repeated;
  }

  void processed(SimMsg m, SimEntity by, long now) {
    Fate before = fates.get(m.id());
    if (before == Fate.PROCESSED && redelivered.contains(m.id())) {
      // At least once: the node that processed it first ended before acknowledging it. The first
      // processing is the one whose order counts.
      checkOneIncarnation(m, by);
      by.lastProcessed = now;
      repeated++;
      return;
    }
    if (before == Fate.PROCESSED) {
      throw new SimViolation("I4 nothing processed twice", m + " processed again by " + by);
    }
    if (before == Fate.LOST && !why.get(m.id()).endsWith(Cause.DEAD_LETTER.name())) {
      // Taken for lost with a node that ended while it was on the wire from there: it arrived after all.
      why.remove(m.id());
      lost--;
    } else if (before != Fate.SENT) {
      throw new SimViolation("I5 a message has one fate", m + " processed by " + by + " after it was " + before
          + " (" + why.get(m.id()) + ")");
    }
    String key = m.sender() + "/" + m.entityId();
    Integer last = lastSeq.get(key);
    if (last != null && last >= m.seq()) {
      throw new SimViolation("I3 a sender's messages to an entity are processed in order",
          m + " processed by " + by + " after seq " + last);
    }
    lastSeq.put(key, m.seq());
    checkOneIncarnation(m, by);
    by.lastProcessed = now;
    fates.set(m.id(), Fate.PROCESSED);
    processed++;
  }

  /** I2: no other incarnation of the entity processed anything since {@code by} started. */
  private void checkOneIncarnation(SimMsg m, SimEntity by) {
    List<SimEntity> list = incarnations.computeIfAbsent(m.entityId(), k -> new ArrayList<>());
    for (SimEntity other : list) {
      if (other != by && other.lastProcessed >= by.started) {
        throw new SimViolation("I2 one incarnation of an entity at a time", by + " (started at " + by.started / 1e9
            + " s) processes " + m + " while " + other + " (started at " + other.started / 1e9
            + " s) processed until " + other.lastProcessed / 1e9 + " s");
      }
    }
    if (!list.contains(by)) {
      list.add(by);
      if (list.size() > 4) {
        list.remove(0);
      }
    }
  }

  void dropped(SimMsg m, int node, String reason) {
    if (fates.get(m.id()) == Fate.SENT) {
      fates.set(m.id(), Fate.DROPPED);
      why.put(m.id(), "dropped on n" + node + ": " + reason);
      dropped++;
    }
  }

  void lost(SimMsg m, int node, Cause cause) {
    if (fates.get(m.id()) == Fate.SENT) {
      if (m.sender() != node) {
        lostFromOthers++;
      }
      fates.set(m.id(), Fate.LOST);
      why.put(m.id(), "lost with n" + node + ": " + cause);
      lost++;
    }
  }

  /** Node {@code node} ended: what it held is lost. */
  List<SimMsg> nodeEnded(int node, Cause cause) {
    List<SimMsg> gone = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      if (fates.get(i) == Fate.SENT && location.get(i) == node) {
        lost(messages.get(i), node, cause);
        gone.add(messages.get(i));
      }
    }
    return gone;
  }

  /** The messages with no fate yet, at most {@code max}. */
  List<SimMsg> unresolved(int max) {
    List<SimMsg> open = new ArrayList<>();
    for (int i = 0; i < messages.size() && open.size() < max; i++) {
      if (fates.get(i) == Fate.SENT) {
        open.add(messages.get(i));
      }
    }
    return open;
  }

  int unresolvedCount() {
    return messages.size() - processed - dropped - lost;
  }

  /** The drop and loss reasons, counted. */
  Map<String, Integer> reasons() {
    Map<String, Integer> counts = new TreeMap<>();
    why.values().forEach(w -> counts.merge(w.replaceAll("n\\d+", "n*").replaceAll("\\[[^\\]]*\\]", "[…]"), 1,
        Integer::sum));
    return counts;
  }

  int location(SimMsg m) {
    return location.get(m.id());
  }
}
