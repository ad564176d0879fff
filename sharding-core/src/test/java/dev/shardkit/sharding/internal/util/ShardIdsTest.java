package dev.shardkit.sharding.internal.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ShardIdsTest {

  @Test
  void anIdIsValidUnlessNullOrEmpty() {
    assertFalse(ShardIds.isValid(null));
    assertFalse(ShardIds.isValid(""));
    for (String id : List.of("0", " ", "shard-ä", "\uD83D", "a/b#c")) {
      assertTrue(ShardIds.isValid(id), id);
      assertEquals(Optional.empty(), ShardIds.problem("shard id", id));
    }
    assertEquals(Optional.of("the entity id is null"), ShardIds.problem("entity id", null));
    assertEquals(Optional.of("the shard id is empty"), ShardIds.problem("shard id", ""));
  }

  @Test
  void aWritePathRefusesAnInvalidIdNamingWhoRefusesAndWhy() {
    assertEquals("7", ShardIds.require("shard id", "7", "the store"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ShardIds.require("shard id", "", "the store"));
    assertEquals("the store refuses an invalid shard id: the shard id is empty", e.getMessage());
  }

  @Test
  void eventsWithAnInvalidShardIdAreRefusedNamingTheEvent() {
    ShardIds.requireIn(List.of(new ShardHomeDeallocated("1")), "the store");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ShardIds.requireIn(List.of(new ShardHomeDeallocated("1"), new ShardHomeAllocated(null, null)),
            "the store"));
    assertTrue(e.getMessage().startsWith("the store refuses to store ShardHomeAllocated")
        && e.getMessage().endsWith("the shard id is null"), e.getMessage());
  }
}
