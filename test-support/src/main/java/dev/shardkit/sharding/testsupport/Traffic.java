package dev.shardkit.sharding.testsupport;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Steady traffic from one thread per sending node: round after round, one numbered message to
 * every entity, with a pause between rounds so the cluster is busy but not flooded.
 */
public final class Traffic {
  private final List<Thread> threads = new ArrayList<>();
  private final Map<String, int[]> rounds = new HashMap<>();
  private volatile boolean running = true;

  public Traffic(Map<String, ActorSystem<?>> senders, EntityTypeKey<Ledger.Command> key, List<String> entityIds,
      Duration pause) {
    this(senders, key, entityIds, pause, Map.of());
  }

  /** Traffic that goes on where an earlier one stopped: each sender's numbers follow {@code sentBefore}. */
  public Traffic(Map<String, ActorSystem<?>> senders, EntityTypeKey<Ledger.Command> key, List<String> entityIds,
      Duration pause, Map<String, Integer> sentBefore) {
    senders.forEach((name, system) -> {
      int[] done = {sentBefore.getOrDefault(name, 0)};
      rounds.put(name, done);
      Thread t = new Thread(() -> {
        List<EntityRef<Ledger.Command>> refs = new ArrayList<>();
        for (String id : entityIds) {
          refs.add(ClusterSharding.get(system).entityRefFor(key, id));
        }
        int seq = done[0];
        while (running) {
          seq++;
          for (EntityRef<Ledger.Command> ref : refs) {
            ref.tell(new Ledger.Msg(name, seq));
          }
          synchronized (done) {
            done[0] = seq;
          }
          try {
            Thread.sleep(pause.toMillis());
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "traffic-" + name);
      threads.add(t);
      t.start();
    });
  }

  /** Stops sending and returns how many rounds each sender completed. */
  public Map<String, Integer> stop() throws InterruptedException {
    running = false;
    for (Thread t : threads) {
      t.join();
    }
    return roundsSoFar();
  }

  /**
   * Waits until every sender has completed {@code more} rounds beyond what it had completed when
   * {@link #roundsSoFar()} gave {@code before}: traffic that went on after some event, counted, not
   * slept for.
   */
  public void awaitRoundsAfter(Map<String, Integer> before, int more, Duration max) {
    TestCluster.await(max, () -> {
      Map<String, Integer> now = roundsSoFar();
      return before.entrySet().stream().allMatch(e -> now.getOrDefault(e.getKey(), 0) >= e.getValue() + more);
    }, more + " more round(s) from every sender");
  }

  /** How many rounds each sender has completed so far. */
  public Map<String, Integer> roundsSoFar() {
    Map<String, Integer> sent = new HashMap<>();
    rounds.forEach((name, done) -> {
      synchronized (done) {
        sent.put(name, done[0]);
      }
    });
    return sent;
  }
}
