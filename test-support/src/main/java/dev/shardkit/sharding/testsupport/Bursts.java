package dev.shardkit.sharding.testsupport;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.EntityTypeKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Bursty traffic from one thread per sending node: {@code waves} times, {@code roundsPerWave}
 * rounds of one numbered message to every entity as fast as the thread can send, then a pause.
 * Unlike {@link Traffic}, which paces its rounds, each wave outruns the transport, so whatever
 * happens meanwhile (a rebalance, a node leaving) meets full queues.
 */
public final class Bursts {
  private final List<Thread> threads = new ArrayList<>();
  private final Map<String, Integer> sent = new HashMap<>();
  /** Per sender, the waves it has sent in full so far. */
  private final Map<String, AtomicInteger> wavesSent = new ConcurrentHashMap<>();

  public Bursts(Map<String, ActorSystem<?>> senders, EntityTypeKey<Ledger.Command> key, List<String> entityIds,
      int waves, int roundsPerWave, Duration pause) {
    senders.forEach((name, system) -> {
      sent.put(name, waves * roundsPerWave);
      AtomicInteger done = wavesSent.computeIfAbsent(name, k -> new AtomicInteger());
      Thread t = new Thread(() -> {
        List<EntityRef<Ledger.Command>> refs = new ArrayList<>();
        for (String id : entityIds) {
          refs.add(ClusterSharding.get(system).entityRefFor(key, id));
        }
        int seq = 0;
        for (int wave = 0; wave < waves; wave++) {
          for (int round = 0; round < roundsPerWave; round++) {
            seq++;
            for (EntityRef<Ledger.Command> ref : refs) {
              ref.tell(new Ledger.Msg(name, seq));
            }
          }
          done.incrementAndGet();
          try {
            Thread.sleep(pause.toMillis());
          } catch (InterruptedException e) {
            throw new IllegalStateException("burst interrupted", e);
          }
        }
      }, "bursts-" + name);
      threads.add(t);
      t.start();
    });
  }

  /** Whether every sender has sent at least {@code waves} waves in full. */
  public boolean sentWaves(int waves) {
    return wavesSent.values().stream().allMatch(n -> n.get() >= waves);
  }

  /** Waits for every wave to be sent; returns how many messages each sender sent to each entity. */
  public Map<String, Integer> await() throws InterruptedException {
    for (Thread t : threads) {
      t.join();
    }
    return Map.copyOf(sent);
  }
}
