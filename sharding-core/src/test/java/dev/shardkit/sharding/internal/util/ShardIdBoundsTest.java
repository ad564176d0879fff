package dev.shardkit.sharding.internal.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.HashCodeMessageExtractor;
import dev.shardkit.sharding.MessageExtractor;
import dev.shardkit.sharding.ShardingEnvelope;
import dev.shardkit.sharding.StableHashMessageExtractor;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ShardIdBoundsTest {
  private final ShardIdBounds known = new ShardIdBounds("Cart", 10, 3, null);
  private final ShardIdBounds capped = new ShardIdBounds("Cart", 0, 3, null);

  @Test
  void withKnownShardIdsOnlyTheExtractorsFormOf0ToNMinus1Passes() {
    for (String id : List.of("0", "9", "5")) {
      assertEquals(Optional.empty(), known.atRegion(id, "e"), id);
      assertEquals(Optional.empty(), known.atCoordinator(id, false, 100), id);
    }
    for (String id : List.of("10", "-1", "01", "+1", "1 ", "x", "99999999999", "4294967296")) {
      Optional<String> region = known.atRegion(id, "e");
      assertTrue(region.isPresent() && region.get().contains("[" + id + "]") && region.get().contains("[Cart]")
          && region.get().contains("0 to 9") && region.get().contains("entity [e]"), id + ": " + region);
      assertTrue(known.atCoordinator(id, false, 0).isPresent(), id);
      // Even a home stored before (by a build without the check) does not make it acceptable.
      assertTrue(known.atCoordinator(id, true, 0).isPresent(), id);
    }
  }

  @Test
  void invalidIdsAreRefusedEverywhere() {
    assertEquals(Optional.of("dropping a message for entity [null]: the entity id is null"),
        capped.atRegion("1", null));
    assertEquals(Optional.of("dropping a message for entity [e]: the shard id is empty"), capped.atRegion("", "e"));
    assertEquals(Optional.of("the shard id is null"), known.atCoordinator(null, false, 0));
  }

  @Test
  void withoutKnownIdsTheCoordinatorCapsNewShardsAndNamesTheTypeTheCapAndTheSetting() {
    assertEquals(Optional.empty(), capped.atRegion("anything", "e"));
    assertEquals(Optional.empty(), capped.atCoordinator("new", false, 2));
    Optional<String> refused = capped.atCoordinator("new", false, 3);
    assertTrue(refused.isPresent() && refused.get().contains("[Cart]") && refused.get().contains("3")
        && refused.get().contains("shardkit.sharding.max-shards") && refused.get().contains("[new]"),
        refused.toString());
    // A shard that has a home keeps being served at the cap.
    assertEquals(Optional.empty(), capped.atCoordinator("old", true, 3));
    // The cap is not the rule when the ids are known.
    assertEquals(Optional.empty(), known.atCoordinator("3", false, 1000));
  }

  @Test
  void theBuiltInExtractorsGiveKnownIdsAndEveryIdTheyGivePasses() {
    MessageExtractor<ShardingEnvelope<String>, String> stable = new StableHashMessageExtractor<>(7);
    MessageExtractor<ShardingEnvelope<String>, String> hashCode = new HashCodeMessageExtractor<>(1000);
    MessageExtractor<Object, Object> custom = new MessageExtractor<>() {
      @Override
      public String entityId(Object message) {
        return "e";
      }

      @Override
      public String shardId(String entityId) {
        return entityId;
      }

      @Override
      public Object unwrapMessage(Object message) {
        return message;
      }
    };
    assertEquals(7, ShardIdBounds.of("T", stable, 5).knownShards());
    assertEquals(0, ShardIdBounds.of("T", custom, 5).knownShards());
    ShardIdBounds hashBounds = ShardIdBounds.of("T", hashCode, 5);
    assertEquals(1000, hashBounds.knownShards());
    // "polygenelubricants".hashCode() is Integer.MIN_VALUE: this extractor gives it a negative id.
    String odd = hashCode.shardId("polygenelubricants");
    assertTrue(odd.startsWith("-"), odd);
    assertEquals(Optional.empty(), hashBounds.atRegion(odd, "polygenelubricants"));
    for (String entityId : List.of("a", "b", "cart-17", "Zoë", "")) {
      assertEquals(Optional.empty(), hashBounds.atCoordinator(hashCode.shardId(entityId), false, 0), entityId);
      assertEquals(Optional.empty(), ShardIdBounds.of("T", stable, 5)
          .atCoordinator(stable.shardId(entityId), false, 0), entityId);
    }
  }

  @Test
  void refusesNonsensicalBounds() {
    assertThrows(IllegalArgumentException.class, () -> new ShardIdBounds("T", -1, 1, null));
    assertThrows(IllegalArgumentException.class, () -> new ShardIdBounds("T", 0, 0, null));
  }
}
