package dev.shardkit.sharding.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PersistentListTest {

  @Test
  void theEmptyListHoldsNothing() {
    PersistentList<String> empty = PersistentList.empty();
    assertTrue(empty.isEmpty());
    assertEquals(List.of(), empty);
    assertThrows(IndexOutOfBoundsException.class, () -> empty.get(0));
  }

  @Test
  void appendedKeepsOrderAndLeavesTheOriginalAlone() {
    PersistentList<String> ab = PersistentList.<String>empty().appended("a").appended("b");
    PersistentList<String> abc = ab.appended("c");
    PersistentList<String> abd = ab.appended("d");
    assertEquals(List.of("a", "b"), ab);
    assertEquals(List.of("a", "b", "c"), abc);
    assertEquals(List.of("a", "b", "d"), abd);
    assertEquals("c", abc.get(2));
    assertEquals(List.of("a", "b", "c").hashCode(), abc.hashCode());
  }

  @Test
  void withoutRemovesTheFirstOccurrenceOnly() {
    PersistentList<String> list = PersistentList.<String>empty().appended("a").appended("b").appended("a");
    assertEquals(List.of("b", "a"), list.without("a"));
    assertEquals(List.of("a", "a"), list.without("b"));
    assertEquals(List.of("a", "b", "a"), list, "the original is unchanged");
    assertSame(list, list.without("x"), "removing what is not there gives the same list");
  }

  @Test
  void itCannotBeModified() {
    PersistentList<String> list = PersistentList.<String>empty().appended("a").appended("b");
    assertThrows(UnsupportedOperationException.class, () -> list.add("c"));
    assertThrows(UnsupportedOperationException.class, () -> list.set(0, "c"));
    assertThrows(UnsupportedOperationException.class, () -> list.remove(0));
    assertThrows(UnsupportedOperationException.class, () -> list.removeIf("a"::equals));
    assertThrows(UnsupportedOperationException.class, list::clear);
    assertThrows(UnsupportedOperationException.class, () -> list.sort(null));
    assertEquals(List.of("a", "b"), list);
  }

  @Test
  void randomOperationsMatchAnArrayListAndEveryEarlierVersionStaysAsItWas() {
    Random random = new Random(7L);
    for (int round = 0; round < 50; round++) {
      PersistentList<Integer> list = PersistentList.empty();
      List<Integer> model = new ArrayList<>();
      List<PersistentList<Integer>> versions = new ArrayList<>();
      List<List<Integer>> expected = new ArrayList<>();
      // Long enough for the vector to grow past its first levels (32, 1024 elements).
      int steps = 1 + random.nextInt(3000);
      for (int i = 0; i < steps; i++) {
        if (!model.isEmpty() && random.nextInt(3) == 0) {
          Integer victim = random.nextBoolean() ? model.get(random.nextInt(model.size())) : random.nextInt(50);
          list = list.without(victim);
          model.remove(victim);
        } else {
          Integer added = random.nextInt(50);
          list = list.appended(added);
          model.add(added);
        }
        versions.add(list);
        expected.add(List.copyOf(model));
      }
      assertEquals(model, list);
      assertEquals(model.size(), list.size());
      for (int i = 0; i < model.size(); i++) {
        assertEquals(model.get(i), list.get(i));
      }
      for (int i = 0; i < versions.size(); i++) {
        assertEquals(expected.get(i), versions.get(i), "version " + i + " of round " + round);
      }
    }
  }
}
