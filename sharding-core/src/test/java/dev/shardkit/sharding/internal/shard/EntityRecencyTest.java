package dev.shardkit.sharding.internal.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class EntityRecencyTest {
  private final EntityRecency r = new EntityRecency();

  private void touchAt(String entityId, long nanos) {
    r.touch(entityId, nanos);
  }

  @Test
  void idleEntitiesAreThoseNotTouchedWithinTheTimeout() {
    touchAt("a", 0);
    touchAt("b", 10);
    touchAt("c", 20);
    touchAt("a", 30); // a is busy again
    assertEquals(List.of("b", "c"), r.idle(20, 40));
    assertEquals(List.of("b"), r.idle(30, 40));
    assertEquals(List.of(), r.idle(31, 40));
    assertEquals(List.of("b", "c", "a"), r.idle(10, 40));
  }

  @Test
  void beyondTheLimitAreTheLeastRecentlyUsed() {
    for (int i = 0; i < 5; i++) {
      touchAt("e" + i, i);
    }
    touchAt("e0", 9);
    assertEquals(List.of("e1", "e2"), r.beyond(3));
    assertEquals(List.of(), r.beyond(5));
    assertEquals(List.of(), r.beyond(10));
    r.remove("e1");
    assertEquals(List.of("e2"), r.beyond(3));
    assertEquals(List.of("e2", "e3", "e4", "e0"), r.beyond(0));
  }

  @Test
  void offKeepsNothing() {
    Recency.OFF.touch("a", 0);
    assertEquals(List.of(), Recency.OFF.idle(0, 1));
    assertEquals(List.of(), Recency.OFF.beyond(0));
  }
}
