package dev.shardkit.sharding.testkit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.testkit.ShardingTestKit;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Counter entity, sharded on one node. */
class CounterTest {
  // Every message is serialized in the testkit, as it would be between nodes: bind the marker.
  static final String CONFIG = """
      pekko.actor.serialization-bindings {
        "dev.shardkit.sharding.testkit.examples.CborSerializable" = jackson-cbor
      }
      """;

  static ShardingTestKit kit;

  @BeforeAll
  static void start() {
    kit = ShardingTestKit.create(CONFIG);
    kit.sharding().start(Entity.of(Counter.KEY, ctx -> Counter.create(ctx.entityId())));
  }

  @AfterAll
  static void stop() {
    kit.close();
  }

  @Test
  void countsIncrements() throws Exception {
    EntityRef<Counter.Command> counter = kit.sharding().entityRefFor(Counter.KEY, "counter-1");
    counter.tell(new Counter.Increment(2));
    counter.tell(new Counter.Increment(3));
    int value = counter.<Integer>ask(Counter.Get::new, Duration.ofSeconds(3))
        .toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertEquals(5, value);
  }

  @Test
  void eachIdIsACounterOfItsOwn() {
    TestProbe<Integer> probe = kit.testKit().createTestProbe();
    kit.sharding().entityRefFor(Counter.KEY, "counter-2").tell(new Counter.Increment(1));
    kit.sharding().entityRefFor(Counter.KEY, "counter-2").tell(new Counter.Get(probe.ref()));
    probe.expectMessage(1);
    // Another entity: one at a time, since two entities answer in no particular order.
    kit.sharding().entityRefFor(Counter.KEY, "counter-3").tell(new Counter.Get(probe.ref()));
    probe.expectMessage(0);
  }
}
