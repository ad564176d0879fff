package dev.shardkit.benchmarks.micro;

import dev.shardkit.sharding.internal.coordinator.HandOffTracker;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The coordinator's {@link HandOffTracker} with 100 000 hand-offs in flight (a region of 100 000
 * shards shutting down): {@code beginAndFinishOne} starts the hand-off of one more shard, takes the
 * owner's report that it stopped, and ends it, which is what each shard's move costs the
 * coordinator's bookkeeping while the others are in progress.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HandOffTrackerBenchmark {
  private static final int IN_FLIGHT = 100_000;
  private ActorSystem<Void> system;
  private HandOffTracker tracker;
  private ActorRef<Object> owner;
  private ActorRef<Object> asker;

  @Setup
  public void setup() {
    system = ActorSystem.create(Behaviors.empty(), "HandOffTrackerBenchmark");
    owner = system.systemActorOf(Behaviors.empty(), "owner", Props.empty());
    asker = system.systemActorOf(Behaviors.empty(), "asker", Props.empty());
    AtomicInteger ids = new AtomicInteger();
    tracker = new HandOffTracker(ids::incrementAndGet);
    List<String> shards = new ArrayList<>();
    for (int i = 0; i < IN_FLIGHT; i++) {
      shards.add(Integer.toString(i));
    }
    shards.forEach(shard -> tracker.start(shard, owner));
  }

  @TearDown
  public void tearDown() {
    system.terminate();
  }

  @Benchmark
  public Set<ActorRef<Object>> beginAndFinishOne() {
    int id = tracker.start("moving", owner);
    tracker.waitForHome("moving", asker);
    if (!tracker.accepts("moving", owner, id, owner)) {
      throw new IllegalStateException("the hand-off's own report was not accepted");
    }
    return tracker.ended("moving");
  }
}
