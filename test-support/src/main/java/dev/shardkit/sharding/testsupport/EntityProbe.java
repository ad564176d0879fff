package dev.shardkit.sharding.testsupport;

import dev.shardkit.sharding.EntityContext;
import dev.shardkit.sharding.Passivate;
import dev.shardkit.sharding.testkit.CborSerializable;
import dev.shardkit.sharding.testkit.TestCluster;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Entities that tell a test what happens to them: which incarnations start and where, which are
 * live at once, and what each receives, in order. One probe per entity type; the systems of a
 * {@link TestCluster} share the JVM, so they all report to it.
 */
public final class EntityProbe {

  /** What the probe's entities understand. */
  public interface Msg {}

  /** A numbered message; the entity records it. */
  public record Hello(int n) implements Msg, CborSerializable {}

  /** The entity asks its shard to passivate it. */
  public enum PassivateMe implements Msg, CborSerializable { INSTANCE }

  /** The entity stops by itself, without passivating. */
  public enum StopYourself implements Msg, CborSerializable { INSTANCE }

  /** The entity throws. */
  public enum Fail implements Msg, CborSerializable { INSTANCE }

  private final Map<String, AtomicInteger> starts = new ConcurrentHashMap<>();
  private final Map<String, String> startedOn = new ConcurrentHashMap<>();
  private final Map<String, List<Integer>> received = new ConcurrentHashMap<>();
  private final Set<String> live = ConcurrentHashMap.newKeySet();
  private final AtomicInteger liveCount = new AtomicInteger();
  private final AtomicInteger maxLive = new AtomicInteger();

  /** The behavior of one entity. */
  public Behavior<Msg> behavior(EntityContext<Msg> ctx) {
    return Behaviors.setup(context -> {
      String id = ctx.entityId();
      starts.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
      startedOn.put(id, context.getSystem().address().toString());
      live.add(id);
      maxLive.accumulateAndGet(liveCount.incrementAndGet(), Math::max);
      return Behaviors.receive(Msg.class)
          .onMessage(Hello.class, h -> {
            received.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()).add(h.n());
            return Behaviors.same();
          })
          .onMessageEquals(PassivateMe.INSTANCE, () -> {
            ctx.shard().tell(new Passivate(context.getSelf()));
            return Behaviors.same();
          })
          .onMessageEquals(StopYourself.INSTANCE, Behaviors::stopped)
          .onMessageEquals(Fail.INSTANCE, () -> {
            throw new IllegalStateException("entity " + id + " fails on purpose");
          })
          .onSignal(PostStop.class, s -> {
            live.remove(id);
            liveCount.decrementAndGet();
            return Behaviors.same();
          })
          .build();
    });
  }

  /** How many incarnations of the entity have started. */
  public int starts(String entityId) {
    AtomicInteger n = starts.get(entityId);
    return n == null ? 0 : n.get();
  }

  /** The address of the system where the entity's latest incarnation started, or null. */
  public String startedOn(String entityId) {
    return startedOn.get(entityId);
  }

  /** What the entity received, over all its incarnations, in order. */
  public List<Integer> received(String entityId) {
    return List.copyOf(received.getOrDefault(entityId, List.of()));
  }

  /** The entities alive now (started and not yet stopped). */
  public Set<String> live() {
    return Set.copyOf(live);
  }

  /** The most entities that were alive at the same time. */
  public int maxLive() {
    return maxLive.get();
  }

  /** Forgets where entities started, so a test can see where they start next. */
  public void forgetStarts() {
    startedOn.clear();
    starts.clear();
  }
}
