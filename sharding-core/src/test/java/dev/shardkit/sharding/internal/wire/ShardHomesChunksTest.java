package dev.shardkit.sharding.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.internal.util.ChunkedHashMap;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHomes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Many homes are split into messages that each fit the budget, and every home is in exactly one. */
class ShardHomesChunksTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  @Test
  void hundredThousandHomesOverAHundredRegionsFitTheBudgetEachAndAllArriveOnce() {
    Map<String, ActorRef<Object>> homes = new HashMap<>();
    List<ActorRef<Object>> regions = java.util.stream.IntStream.range(0, 100).mapToObj(refs::region).toList();
    for (int i = 0; i < 100_000; i++) {
      homes.put(Integer.toString(i), regions.get(i % 100));
    }
    List<ShardHomes> chunks = ShardHomesChunks.of(homes, 4, ShardHomesChunks.DEFAULT_MAX_BYTES);
    assertTrue(chunks.size() > 1, "100 000 homes do not fit one frame");
    Serialization serialization = SerializationExtension.get(Adapter.toClassic(refs.testKit().system()));
    Map<String, ActorRef<Object>> together = new HashMap<>();
    for (ShardHomes chunk : chunks) {
      assertEquals(4, chunk.term());
      int bytes = serialization.serialize(chunk).get().length;
      assertTrue(bytes <= ShardHomesChunks.DEFAULT_MAX_BYTES, bytes + " bytes");
      chunk.homes().forEach((id, region) -> assertEquals(null, together.put(id, region), "shard " + id + " twice"));
    }
    assertEquals(homes, together);
  }

  @Test
  void eachMessageHoldsItsOwnRangeOfTablePositions() {
    // A region's table copies the parts a message touches: messages of disjoint ranges touch
    // disjoint parts, where homes in hash-map order would make each message touch nearly all.
    Map<String, ActorRef<Object>> homes = new HashMap<>();
    for (int i = 0; i < 20_000; i++) {
      homes.put("shard-" + i, refs.region(i % 7));
    }
    List<ShardHomes> chunks = ShardHomesChunks.of(homes, 1, 16 * 1024);
    assertTrue(chunks.size() >= 8, chunks.size() + " messages");
    int lastTopBits = -1;
    for (ShardHomes chunk : chunks) {
      int[] topBits = chunk.homes().keySet().stream()
          .mapToInt(id -> ChunkedHashMap.position(id) >>> 24).sorted().toArray();
      assertTrue(topBits[0] >= lastTopBits, "a message starts at " + topBits[0] + ", before the last one ended at "
          + lastTopBits);
      // Only the runs at its two ends may be shared with its neighbours.
      assertTrue(topBits[topBits.length - 1] - topBits[0] < 256 / 4, "one message spans " + topBits[0] + " to "
          + topBits[topBits.length - 1]);
      lastTopBits = topBits[topBits.length - 1];
    }
  }

  @Test
  void noHomesMakeNoMessageAndAHomeBeyondTheBudgetIsRefusedNamingIt() {
    assertEquals(List.of(), ShardHomesChunks.of(Map.of(), 1, 1000));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ShardHomesChunks.of(Map.of("x".repeat(400), refs.region(1)), 1, 1000));
    assertTrue(e.getMessage().contains("xxxx") && e.getMessage().contains("1000 bytes"), e.getMessage());
  }
}
