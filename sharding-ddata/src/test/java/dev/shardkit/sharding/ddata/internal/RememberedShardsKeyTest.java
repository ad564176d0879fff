package dev.shardkit.sharding.ddata.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.pekko.cluster.ddata.ORSetKey;
import org.junit.jupiter.api.Test;

/** The key that lists a type's shards with remembered entities: durable, and never a shard's key. */
class RememberedShardsKeyTest {

  @Test
  void itIsNamedAfterTheTypeAndKeptDurableLikeTheShardsKeys() {
    assertEquals("shardkit-entities-Cart/shards", RememberedShardsKey.of("Cart").id());
    assertEquals("shardkit-entities-a+b%2Fc/shards", RememberedShardsKey.of("a b/c").id());
    assertTrue(RememberedShardsKey.of("Cart").id().startsWith(ShardEntitiesKeys.PREFIX));
    assertFalse(RememberedShardsKey.of("Cart").id().startsWith(CoordinatorStateKey.PREFIX));
    assertEquals(RememberedShardsKey.of("Cart"), RememberedShardsKey.of("Cart"));
  }

  @Test
  void noShardOfAnyTypeHasItsKey() {
    // Names that put "shards" and "/" where a shard key has its parts.
    List<String[]> typeAndShard = List.of(new String[] {"Cart", "shards"}, new String[] {"Cart/shards", "0"},
        new String[] {"Cart", "shards/0"}, new String[] {"Cart%2Fshards", "0"}, new String[] {"Cart/shards", "x"});
    List<ORSetKey<String>> lists = List.of(RememberedShardsKey.of("Cart"), RememberedShardsKey.of("Cart/shards"),
        RememberedShardsKey.of("Cart%2Fshards"));
    for (String[] ts : typeAndShard) {
      for (ORSetKey<String> shardKey : ShardEntitiesKeys.of(ts[0], ts[1]).all()) {
        for (ORSetKey<String> list : lists) {
          assertFalse(list.equals(shardKey), list.id() + " is also a key of shard [" + ts[1] + "] of [" + ts[0] + "]");
        }
      }
    }
    // Two types never share a list.
    assertFalse(RememberedShardsKey.of("Cart/shards").equals(RememberedShardsKey.of("Cart%2Fshards")));
  }

  @Test
  void badTypeNamesAreRejectedSayingWhatIsWrong() {
    IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> RememberedShardsKey.of(""));
    assertTrue(empty.getMessage().contains("type name must not be null or empty"), empty.getMessage());
    assertThrows(IllegalArgumentException.class, () -> RememberedShardsKey.of(null));
    String longType = "t".repeat(490);
    IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
        () -> RememberedShardsKey.of(longType));
    assertTrue(tooLong.getMessage().contains("Entity type [" + longType + "]"), tooLong.getMessage());
    assertTrue(tooLong.getMessage().contains("515 bytes") && tooLong.getMessage().contains("at most 511"),
        tooLong.getMessage());
    RememberedShardsKey.of("t".repeat(486)); // 18 + 486 + 7 = 511 bytes: the longest accepted
  }
}
