package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.MessageExtractor;
import dev.shardkit.sharding.internal.region.EnvelopeExtraction.Extracted;
import dev.shardkit.sharding.internal.region.EnvelopeExtraction.Rejected;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class EnvelopeExtractionTest {

  /** Envelopes are "entity:message"; the shard is the entity's first letter. */
  private static MessageExtractor<Object, Object> extractor(Function<String, String> entity,
      Function<String, String> shard, Function<String, Object> message) {
    return new MessageExtractor<>() {
      @Override
      public String entityId(Object envelope) {
        return entity.apply((String) envelope);
      }

      @Override
      public String shardId(String entityId) {
        return shard.apply(entityId);
      }

      @Override
      public Object unwrapMessage(Object envelope) {
        return message.apply((String) envelope);
      }
    };
  }

  private static final MessageExtractor<Object, Object> GOOD = extractor(e -> e.split(":")[0],
      id -> id.substring(0, 1), e -> e.split(":")[1]);

  @Test
  void anEnvelopeBecomesADeliveryForItsEntityAndShard() {
    assertEquals(new Extracted(new Deliver("counter", "a", "abc", "inc")),
        EnvelopeExtraction.extract("counter", GOOD, "abc:inc"));
  }

  @Test
  void aNullOrEmptyEntityIdIsRejectedNamingTheMessageClass() {
    assertEquals(new Rejected("the message extractor gave a null entity id for a message of class java.lang.String"),
        EnvelopeExtraction.extract("counter", extractor(e -> null, id -> "s", e -> e), "x"));
    assertEquals(new Rejected("the message extractor gave an empty entity id for a message of class java.lang.String"),
        EnvelopeExtraction.extract("counter", extractor(e -> "", id -> "s", e -> e), "x"));
  }

  @Test
  void aNullOrEmptyShardIdIsRejectedNamingTheEntity() {
    Rejected empty = assertInstanceOf(Rejected.class,
        EnvelopeExtraction.extract("counter", extractor(e -> "abc", id -> "", e -> e), "x"));
    assertEquals("the message extractor gave a null or empty shard id for entity [abc]", empty.reason());
    assertInstanceOf(Rejected.class, EnvelopeExtraction.extract("counter", extractor(e -> "abc", id -> null, e -> e),
        "x"));
  }

  @Test
  void aNullMessageIsRejected() {
    assertEquals(new Rejected("the message extractor unwrapped null for entity [abc]"),
        EnvelopeExtraction.extract("counter", extractor(e -> "abc", id -> "a", e -> null), "x"));
  }

  @Test
  void anExtractorThatThrowsDoesNotEscape() {
    Rejected rejected = assertInstanceOf(Rejected.class, EnvelopeExtraction.extract("counter",
        extractor(e -> e, id -> {
          throw new IllegalStateException("boom");
        }, e -> e), "abc"));
    assertTrue(rejected.reason().startsWith("the message extractor threw java.lang.IllegalStateException: boom"),
        rejected.reason());
    assertInstanceOf(Rejected.class, EnvelopeExtraction.extract("counter", GOOD, 42), "not a String: it throws");
  }
}
