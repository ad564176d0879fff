package dev.shardkit.sharding.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The stored ids: fixed formats, and an entity type's remembered-entities ids are its own. */
class ShardingPersistenceIdsTest {

  @Test
  void theFormatsAreFixed() {
    assertEquals("shardkit-coordinator-Cart", ShardingPersistenceIds.coordinator("Cart"));
    assertEquals("shardkit-entities-Cart|17", ShardingPersistenceIds.entities("Cart", "17"));
    assertEquals("shardkit-entities-Cart|", ShardingPersistenceIds.entitiesPrefix("Cart"));
  }

  @Test
  void aTypesPrefixMatchesAllItsShardsAndNoOtherTypesShards() {
    List<String> types = List.of("A", "A-b", "A.b", "A_b", "Ab", "A-");
    List<String> shards = List.of("1", "b-1", "-1", "|1", "b|1", "x y/z", "A-b|1");
    for (String type : types) {
      String prefix = ShardingPersistenceIds.entitiesPrefix(type);
      for (String other : types) {
        for (String shard : shards) {
          String id = ShardingPersistenceIds.entities(other, shard);
          assertEquals(type.equals(other), id.startsWith(prefix), type + "'s prefix " + prefix + " vs " + id);
        }
      }
    }
    // The clash a plain "-" separator would have: type A, shard b-1 versus type A-b, shard 1.
    assertFalse(ShardingPersistenceIds.entities("A", "b-1").equals(ShardingPersistenceIds.entities("A-b", "1")));
  }

  @Test
  void aShardIdIsDecodedFromItsTypesPersistenceIdsOnly() {
    List<String> types = List.of("A", "A-b", "A.b", "Ab");
    List<String> shards = List.of("1", "b-1", "-1", "|1", "b|1", "x y/z", "A-b|1", "|");
    for (String type : types) {
      for (String other : types) {
        for (String shard : shards) {
          String id = ShardingPersistenceIds.entities(other, shard);
          assertEquals(type.equals(other) ? Optional.of(shard) : Optional.empty(),
              ShardingPersistenceIds.entitiesShardId(type, id), type + " decoding " + id);
        }
      }
    }
    // Not remembered-entities ids of the type: the bare prefix (no shard has an empty id), a
    // coordinator's id, an application's.
    assertEquals(Optional.empty(), ShardingPersistenceIds.entitiesShardId("A", "shardkit-entities-A|"));
    assertEquals(Optional.empty(), ShardingPersistenceIds.entitiesShardId("A", "shardkit-entities-A"));
    assertEquals(Optional.empty(), ShardingPersistenceIds.entitiesShardId("A", ShardingPersistenceIds.coordinator("A")));
    assertEquals(Optional.empty(), ShardingPersistenceIds.entitiesShardId("A", "cart-17"));
    assertEquals(Optional.empty(), ShardingPersistenceIds.entitiesShardId("A", null));
    assertThrows(IllegalArgumentException.class, () -> ShardingPersistenceIds.entitiesShardId("A|b", "x"));
  }

  @Test
  void badNamesAreRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ShardingPersistenceIds.entities("A|b", "1"));
    assertTrue(e.getMessage().contains("Entity type name [A|b] has the character '|'"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> ShardingPersistenceIds.entities("A", ""));
    assertTrue(e.getMessage().contains("A shard id must not be null or empty (entity type [A])"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ShardingPersistenceIds.entities("A", null));
    assertThrows(IllegalArgumentException.class, () -> ShardingPersistenceIds.entitiesPrefix(""));
    assertThrows(IllegalArgumentException.class, () -> ShardingPersistenceIds.coordinator(""));
  }
}
