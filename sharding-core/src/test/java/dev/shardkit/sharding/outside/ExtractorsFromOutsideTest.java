package dev.shardkit.sharding.outside;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.EnvelopeMessageExtractor;
import dev.shardkit.sharding.HashCodeMessageExtractor;
import dev.shardkit.sharding.ShardingEnvelope;
import dev.shardkit.sharding.StableHashMessageExtractor;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Application code, outside shardkit's package, names the shipped extractors by their common base
 * and reads what they share: it compiles only while that base is public.
 */
class ExtractorsFromOutsideTest {

  static int shardsOf(EnvelopeMessageExtractor<String> extractor) {
    return extractor.numberOfShards();
  }

  @Test
  void bothShippedExtractorsAreNamedByTheirBase() {
    List<EnvelopeMessageExtractor<String>> extractors =
        List.of(new StableHashMessageExtractor<>(30), new HashCodeMessageExtractor<>(30));
    for (EnvelopeMessageExtractor<String> extractor : extractors) {
      assertEquals(30, shardsOf(extractor));
      ShardingEnvelope<String> envelope = new ShardingEnvelope<>("cart-7", "hello");
      assertEquals("cart-7", extractor.entityId(envelope));
      assertEquals("hello", extractor.unwrapMessage(envelope));
      int shard = Integer.parseInt(extractor.shardId("cart-7"));
      assertTrue(shard >= 0 && shard < 30, extractor + " gave shard " + shard);
    }
  }
}
