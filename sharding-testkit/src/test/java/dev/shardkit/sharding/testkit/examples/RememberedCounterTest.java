package dev.shardkit.sharding.testkit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.testkit.ShardingTestKit;
import dev.shardkit.sharding.testkit.TestCluster;
import dev.shardkit.sharding.testkit.TestRememberStore;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Counters with remember-entities on, kept in TestRememberStore: a new one starts once it is remembered. */
class RememberedCounterTest {
  static final String CONFIG = CounterTest.CONFIG + """
      shardkit.sharding.remember-entities = on
      shardkit.sharding.remember-entities-store = test
      """;
  static final EntityTypeKey<Counter.Command> KEY = EntityTypeKey.create(Counter.Command.class, "RememberedCounter");

  @Test
  void aNewCounterStartsOnceTheStoreHasRememberedIt() throws Exception {
    try (ShardingTestKit kit = ShardingTestKit.create(CONFIG)) {
      kit.sharding().start(Entity.of(KEY, ctx -> Counter.create(ctx.entityId())));
      EntityRef<Counter.Command> counter = kit.sharding().entityRefFor(KEY, "counter-1");

      TestRememberStore store = kit.rememberStore();
      store.closeGate(); // the store holds every write from now on
      CompletableFuture<Integer> value;
      try {
        value = counter.<Integer>ask(Counter.Get::new, Duration.ofSeconds(10)).toCompletableFuture();
        TestCluster.await(Duration.ofSeconds(10), () -> store.heldWrites() == 1, "the counter's write is held");
        assertFalse(value.isDone(), "the counter waits for its write");
      } finally {
        store.openGate();
      }

      assertEquals(0, value.get(10, TimeUnit.SECONDS));
      assertEquals(Set.of("counter-1"), store.remembered("RememberedCounter"));
    }
  }
}
