package dev.shardkit.sharding.internal.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ChunkedHashMapTest {

  private static <V> Map<String, V> contents(ChunkedHashMap<V> map) {
    Map<String, V> out = new HashMap<>();
    map.forEach((k, v) -> assertNull(out.put(k, v), "key [" + k + "] seen twice"));
    assertEquals(out.size(), map.size());
    return out;
  }

  private static <V> void assertHolds(Map<String, V> expected, ChunkedHashMap<V> map) {
    assertEquals(expected, contents(map));
    expected.forEach((k, v) -> assertEquals(v, map.get(k), "key [" + k + "]"));
  }

  @Test
  void matchesAHashMapThroughRandomChangesAndKeepsEveryEarlierVersion() {
    Random random = new Random(17);
    ChunkedHashMap<Integer> map = ChunkedHashMap.empty();
    Map<String, Integer> model = new HashMap<>();
    List<ChunkedHashMap<Integer>> versions = new ArrayList<>();
    List<Map<String, Integer>> models = new ArrayList<>();
    // Enough keys to grow through several doublings of the chunks, and shrink again.
    for (int step = 0; step < 20_000; step++) {
      String key = Integer.toString(random.nextInt(3_000));
      int op = random.nextInt(10);
      if (op < 6) {
        map = map.with(key, step);
        model.put(key, step);
      } else if (op < 9) {
        map = map.without(key);
        model.remove(key);
      } else {
        Map<String, Integer> many = new HashMap<>();
        for (int i = 0; i < 50; i++) {
          many.put(Integer.toString(random.nextInt(3_000)), step);
        }
        map = map.withAll(many);
        model.putAll(many);
      }
      assertEquals(model.size(), map.size(), "size after step " + step);
      assertEquals(model.get(key), map.get(key), "key [" + key + "] after step " + step);
      if (step % 1_000 == 0) {
        versions.add(map);
        models.add(new HashMap<>(model));
      }
    }
    assertHolds(model, map);
    for (int i = 0; i < versions.size(); i++) {
      assertHolds(models.get(i), versions.get(i));
    }
    assertNull(map.get("not a key"));
  }

  @Test
  void manyKeysAtOnceIntoAnEmptyMap() {
    Map<String, String> all = new HashMap<>();
    for (int i = 0; i < 10_000; i++) {
      all.put("shard-" + i, "home-" + i);
    }
    ChunkedHashMap<String> map = ChunkedHashMap.<String>empty().withAll(all);
    assertHolds(all, map);
    assertSame(map, map.withAll(Map.of()));
    assertSame(map, map.without("absent"));
    assertEquals(0, ChunkedHashMap.empty().size(), "the shared empty map is untouched");
  }

  @Test
  void anEditorGivesEachKeysValueBeforeAndLeavesItsOriginAsItWas() {
    Random random = new Random(18);
    ChunkedHashMap<Integer> map = ChunkedHashMap.empty();
    Map<String, Integer> model = new HashMap<>();
    // Batches from small to larger than the map, so that some grow it and some only touch chunks;
    // keys drawn from a range that makes about half of each batch replace an existing value.
    for (int batch = 0; batch < 40; batch++) {
      Map<String, Integer> before = new HashMap<>(model);
      ChunkedHashMap<Integer> origin = map;
      int keys = 1 + random.nextInt(batch < 20 ? 200 : 5_000);
      ChunkedHashMap.Editor<Integer> editor = map.edit(random.nextInt(keys + 1));
      for (int i = 0; i < keys; i++) {
        String key = Integer.toString(random.nextInt(2 * (model.size() + keys)));
        int value = batch * 10_000 + i;
        assertEquals(model.put(key, value), editor.put(key, value), "value before of key [" + key + "]");
      }
      map = editor.done();
      assertHolds(model, map);
      assertHolds(before, origin);
    }
    ChunkedHashMap.Editor<Integer> unused = map.edit(10);
    assertSame(map, unused.done(), "nothing put: the same map");
    assertThrows(IllegalStateException.class, () -> unused.put("1", 1));
    assertThrows(IllegalArgumentException.class, () -> ChunkedHashMap.empty().edit(-1));
  }

  @Test
  void nullValuesAreRefusedNamingTheKey() {
    Map<String, String> withNull = new HashMap<>();
    withNull.put("7", null);
    assertEquals("value for key [7]", assertThrows(NullPointerException.class,
        () -> ChunkedHashMap.<String>empty().withAll(withNull)).getMessage());
    assertEquals("value for key [8]", assertThrows(NullPointerException.class,
        () -> ChunkedHashMap.<String>empty().with("8", null)).getMessage());
  }
}
