package dev.shardkit.sharding.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class EntityRecencyTest {

  @Test
  void idleEntitiesAreThoseNotTouchedWithinTheTimeout() {
    EntityRecency r = new EntityRecency();
    r.touch("a", 0);
    r.touch("b", 10);
    r.touch("c", 20);
    r.touch("a", 30); // a is busy again
    assertEquals(List.of("b", "c"), r.idle(40, 20));
    assertEquals(List.of("b"), r.idle(40, 30));
    assertEquals(List.of(), r.idle(40, 31));
    assertEquals(List.of("b", "c", "a"), r.idle(40, 10));
  }

  @Test
  void beyondTheLimitAreTheLeastRecentlyUsed() {
    EntityRecency r = new EntityRecency();
    for (int i = 0; i < 5; i++) {
      r.touch("e" + i, i);
    }
    r.touch("e0", 9);
    assertEquals(List.of("e1", "e2"), r.beyond(3));
    assertEquals(List.of(), r.beyond(5));
    assertEquals(List.of(), r.beyond(10));
    r.remove("e1");
    assertEquals(List.of("e2"), r.beyond(3));
    assertEquals(4, r.size());
  }
}
