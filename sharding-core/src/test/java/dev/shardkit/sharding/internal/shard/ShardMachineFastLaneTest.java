package dev.shardkit.sharding.internal.shard;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shardkit.sharding.internal.shard.ShardInput.Deliver;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityStarted;
import dev.shardkit.sharding.internal.shard.ShardInput.Start;
import dev.shardkit.sharding.internal.shard.ShardMachineTest.Ent;
import java.lang.management.ManagementFactory;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fast lane of delivery ({@link ShardMachine#activeFor}) allocates nothing: a message for an
 * active entity costs the shard no input and no effect object, and keeping when it was last used
 * (automatic passivation on) costs no object either. Measured with the JVM's count of the bytes
 * this thread allocated, over a million deliveries to a thousand entities.
 */
class ShardMachineFastLaneTest {
  private static final int ENTITIES = 1_000;
  private static final int DELIVERIES = 1_000_000;

  @ParameterizedTest(name = "automatic passivation {0}")
  @ValueSource(booleans = {false, true})
  void deliveringToAnActiveEntityAllocatesNothing(boolean automaticPassivation) {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
    ShardMachine<Ent> m = new ShardMachine<>(ShardMachineTest.config(false, Optional.empty(), automaticPassivation, 0),
        new ShardCarryOver(Integer.MAX_VALUE).take(), Ent::id);
    m.handle(new Start<>(), 0);
    String[] ids = new String[ENTITIES];
    Ent[] entities = new Ent[ENTITIES];
    for (int i = 0; i < ENTITIES; i++) {
      ids[i] = "entity-" + i;
      entities[i] = new Ent(ids[i], 1);
      m.handle(new Deliver<>(ids[i], "first"), 0);
      m.handle(new EntityStarted<>(ids[i], entities[i]), 0);
    }
    long found = deliver(m, ids);
    long before = threads.getCurrentThreadAllocatedBytes();
    found += deliver(m, ids);
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertTrue(found == 2L * DELIVERIES, "every entity was active");
    // The measurement itself may cost a few bytes; a single allocation per delivery would be 16 MB.
    assertTrue(allocated < DELIVERIES / 10, allocated + " bytes allocated for " + DELIVERIES + " deliveries");
    assertSame(entities[7], m.activeFor(ids[7], 0));
  }

  private static long deliver(ShardMachine<Ent> m, String[] ids) {
    long found = 0;
    for (int i = 0; i < DELIVERIES; i++) {
      if (m.activeFor(ids[i % ids.length], i) != null) {
        found++;
      }
    }
    return found;
  }
}
