package dev.shardkit.sharding.internal.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MessageBuffersTest {

  @Test
  void negativeLimitIsRejected() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new MessageBuffers<String>(-1));
    assertTrue(e.getMessage().contains("-1"), e.getMessage());
  }

  @Test
  void zeroLimitHoldsNothing() {
    MessageBuffers<String> b = new MessageBuffers<>(0);
    assertFalse(b.offer("s", "m"));
    assertEquals(0, b.total());
    assertFalse(b.contains("s"));
    assertEquals(0, b.limit());
  }

  @Test
  void emptyBuffers() {
    MessageBuffers<String> b = new MessageBuffers<>(10);
    assertEquals(List.of(), b.drain("s"));
    assertEquals(0, b.total());
    assertEquals(Set.of(), b.keys());
    assertFalse(b.contains("s"));
    assertEquals(10, b.limit());
  }

  /** A region asks for the homes of its held shards in this order: it must be the same in every JVM. */
  @Test
  void keysComeInTheOrderTheyFirstHeldAMessage() {
    MessageBuffers<String> b = new MessageBuffers<>(100);
    List<String> order = List.of("17", "3", "z", "a", "12", "m", "0", "b9");
    for (String key : order) {
      assertTrue(b.offer(key, key));
    }
    assertTrue(b.offer("3", "again"));
    assertEquals(order, new ArrayList<>(b.keys()));
    b.drain("z");
    assertTrue(b.offer("z", "back"));
    assertEquals(List.of("17", "3", "a", "12", "m", "0", "b9", "z"), new ArrayList<>(b.keys()));
  }

  @Test
  void limitIsOverAllKeys() {
    MessageBuffers<String> b = new MessageBuffers<>(5);
    assertTrue(b.offer("a", 1));
    assertTrue(b.offer("b", 2));
    assertTrue(b.offer("c", 3));
    assertTrue(b.offer("a", 4));
    assertTrue(b.offer("d", 5));
    // Full: neither an existing key nor a new one gets room, so many keys cannot multiply the bound.
    assertFalse(b.offer("a", 6));
    assertFalse(b.offer("e", 7));
    assertEquals(5, b.total());
    assertFalse(b.contains("e"), "a rejected offer must not leave an empty entry behind");
    assertEquals(Set.of("a", "b", "c", "d"), b.keys());
    assertEquals(List.of(1, 4), b.drain("a"));
  }

  @Test
  void orderIsKeptPerKeyWhenKeysInterleave() {
    MessageBuffers<String> b = new MessageBuffers<>(1000);
    Map<String, List<Object>> expected = new HashMap<>();
    Random random = new Random(5);
    for (int i = 0; i < 600; i++) {
      String key = "k" + random.nextInt(7);
      assertTrue(b.offer(key, i));
      expected.computeIfAbsent(key, k -> new ArrayList<>()).add(i);
    }
    for (Map.Entry<String, List<Object>> e : expected.entrySet()) {
      assertEquals(e.getValue(), b.drain(e.getKey()), e.getKey());
    }
    assertEquals(0, b.total());
  }

  @Test
  void drainReturnsOldestFirstAndFreesRoom() {
    MessageBuffers<String> b = new MessageBuffers<>(3);
    b.offer("s1", "first");
    b.offer("s2", "other");
    b.offer("s1", "second");
    assertFalse(b.offer("s3", "no room"));

    assertEquals(List.of("first", "second"), b.drain("s1"));
    assertEquals(1, b.total());
    assertFalse(b.contains("s1"));
    assertEquals(List.of(), b.drain("s1"));

    // The two freed places are usable again, by any key.
    assertTrue(b.offer("s3", "x"));
    assertTrue(b.offer("s1", "y"));
    assertFalse(b.offer("s1", "z"));
    assertEquals(List.of("y"), b.drain("s1"));
    assertEquals(List.of("other"), b.drain("s2"));
    assertEquals(List.of("x"), b.drain("s3"));
    assertEquals(0, b.total());
    assertEquals(Set.of(), b.keys());
  }

  @Test
  void countsAndMembership() {
    MessageBuffers<Integer> b = new MessageBuffers<>(100);
    b.offer(1, "a");
    b.offer(1, "b");
    b.offer(2, "c");
    assertTrue(b.contains(1));
    assertTrue(b.contains(2));
    assertFalse(b.contains(3));
    assertEquals(3, b.total());
    assertEquals(Set.of(1, 2), b.keys());
    assertEquals(List.of("a", "b"), b.drain(1));
    assertEquals(1, b.total());
  }

  @Test
  void sameMessageObjectMayBeHeldTwice() {
    // Identical payloads (e.g. an enum command) are separate messages, not a set.
    MessageBuffers<String> b = new MessageBuffers<>(10);
    Object ping = "ping";
    b.offer("s", ping);
    b.offer("s", ping);
    assertEquals(List.of(ping, ping), b.drain("s"));
  }

  @Test
  void keysAndDrainedListsAreSnapshots() {
    MessageBuffers<String> b = new MessageBuffers<>(10);
    b.offer("a", 1);
    Set<String> keys = b.keys();
    b.offer("b", 2);
    assertEquals(Set.of("a"), keys);
    assertThrows(UnsupportedOperationException.class, () -> keys.add("c"));

    List<Object> drained = b.drain("a");
    b.offer("a", 3);
    assertEquals(List.of(1), drained);
    assertEquals(List.of(3), b.drain("a"));
  }

  @Test
  void totalNeverExceedsTheLimitUnderRandomTraffic() {
    MessageBuffers<Integer> b = new MessageBuffers<>(50);
    Random random = new Random(11);
    int accepted = 0;
    int drained = 0;
    for (int i = 0; i < 20_000; i++) {
      int key = random.nextInt(20);
      if (random.nextInt(10) == 0) {
        drained += b.drain(key).size();
      } else if (b.offer(key, i)) {
        accepted++;
      } else {
        assertEquals(50, b.total());
      }
      assertTrue(b.total() <= 50);
      assertEquals(accepted - drained, b.total());
    }
  }
}
