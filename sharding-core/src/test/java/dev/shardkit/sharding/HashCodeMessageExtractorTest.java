package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class HashCodeMessageExtractorTest {
  private static final int[] SHARD_COUNTS = {1, 2, 3, 7, 10, 100, 1000, 1024, 65_537, Integer.MAX_VALUE};
  private static final List<String> ids = new ArrayList<>();
  private static final List<String> minValueIds = new ArrayList<>();

  @BeforeAll
  static void buildIds() {
    Random random = new Random(4242);
    minValueIds.add("polygenelubricants");
    minValueIds.addAll(stringsWithHashCode(Integer.MIN_VALUE, 50));
    ids.addAll(minValueIds);
    ids.add("");
    for (int i = 0; ids.size() < 100_000; i++) {
      switch (i % 4) {
        case 0 -> ids.add("entity-" + i);
        case 1 -> ids.add(Long.toString(random.nextLong(), 36));
        case 2 -> ids.add(randomString(random, 1 + random.nextInt(24)));
        default -> ids.add(randomString(random, 1 + random.nextInt(3)) + "-" + i);
      }
    }
  }

  // Any char, surrogates included: String.hashCode sees UTF-16 code units, so both sides must too.
  private static String randomString(Random random, int length) {
    char[] c = new char[length];
    for (int i = 0; i < length; i++) {
      c[i] = random.nextInt(3) == 0 ? (char) random.nextInt(Character.MAX_VALUE + 1) : (char) (' ' + random.nextInt(95));
    }
    return new String(c);
  }

  /**
   * Strings whose hashCode is {@code target}: a prefix followed by two chars solving
   * {@code h(prefix) * 961 + c1 * 31 + c2 == target (mod 2^32)}.
   */
  private static List<String> stringsWithHashCode(int target, int howMany) {
    List<String> found = new ArrayList<>();
    for (int p = 0; found.size() < howMany; p++) {
      String prefix = "id-" + p;
      long need = Integer.toUnsignedLong(target - prefix.hashCode() * 961);
      long c1 = Math.min(need / 31, Character.MAX_VALUE);
      long c2 = need - c1 * 31;
      if (c2 >= 0 && c2 <= Character.MAX_VALUE) {
        String s = prefix + (char) c1 + (char) c2;
        assertEquals(target, s.hashCode(), s);
        found.add(s);
      }
    }
    return found;
  }

  @Test
  void theIdSetCoversTheEdgeCases() {
    assertEquals(Integer.MIN_VALUE, "polygenelubricants".hashCode());
    assertTrue(minValueIds.size() > 10);
    minValueIds.forEach(s -> assertEquals(Integer.MIN_VALUE, s.hashCode(), s));
    assertEquals(100_000, ids.size());
    long negatives = ids.stream().filter(s -> s.hashCode() < 0).count();
    assertTrue(negatives > 30_000, "negative hashCodes: " + negatives);
  }

  private static void assertSameAsPekko(List<String> idsToCheck) {
    for (int n : SHARD_COUNTS) {
      HashCodeMessageExtractor<Object> ours = new HashCodeMessageExtractor<>(n);
      org.apache.pekko.cluster.sharding.typed.HashCodeMessageExtractor<Object> pekko =
          new org.apache.pekko.cluster.sharding.typed.HashCodeMessageExtractor<>(n);
      for (String id : idsToCheck) {
        assertEquals(pekko.shardId(id), ours.shardId(id), () -> "id " + id + " (hashCode " + id.hashCode() + "), " + n);
      }
    }
  }

  @Test
  void shardIdsAreIdenticalToPekkos() {
    assertSameAsPekko(ids.stream().filter(id -> id.hashCode() != Integer.MIN_VALUE).toList());
  }

  /**
   * Kept apart from the test above so that its failure points at the one case where
   * {@code Math.abs(h % n)} and Pekko's {@code Math.abs(h) % n} differ: a hashCode of
   * {@code Integer.MIN_VALUE}, whose absolute value is itself. Pekko then yields a negative shard
   * id (e.g. "-2" for 3 shards); a migration needs the same id, negative or not.
   */
  @Test
  void minValueHashCodeShardIdsAreIdenticalToPekkos() {
    assertSameAsPekko(minValueIds);
    // Pekko's values, pinned so the expectation does not hinge on the peer being on the classpath.
    assertEquals("-2", HashCodeMessageExtractor.shardIdFor("polygenelubricants", 3));
    assertEquals("-8", HashCodeMessageExtractor.shardIdFor("polygenelubricants", 10));
    assertEquals("0", HashCodeMessageExtractor.shardIdFor("polygenelubricants", 1024));
    assertEquals("-1", HashCodeMessageExtractor.shardIdFor("polygenelubricants", Integer.MAX_VALUE));
  }

  @Test
  void shardIdsAreInRangeAndCanonical() {
    for (int n : SHARD_COUNTS) {
      HashCodeMessageExtractor<Object> extractor = new HashCodeMessageExtractor<>(n);
      for (int i = 0; i < ids.size(); i += 7) {
        String id = ids.get(i);
        String shard = extractor.shardId(id);
        int value = Integer.parseInt(shard);
        // Integer.MIN_VALUE hashCodes are the documented exception (see the test above).
        if (id.hashCode() != Integer.MIN_VALUE) {
          assertTrue(value >= 0 && value < n, shard);
        }
        assertEquals(Integer.toString(value), shard);
      }
    }
  }

  @Test
  void anExtractorGivesEachShardOneIdString() {
    HashCodeMessageExtractor<Object> extractor = new HashCodeMessageExtractor<>(1000);
    assertSame(extractor.shardId("entity-7"), extractor.shardId(new String("entity-7".toCharArray())));
    // Pekko's negative id for a hashCode of Integer.MIN_VALUE is not among the kept ones, and stays right.
    assertEquals("-2", new HashCodeMessageExtractor<>(3).shardId("polygenelubricants"));
  }

  @Test
  void negativeHashCodesGiveTheAbsoluteRemainder() {
    // Not floorMod: Pekko folds -h and h onto the same shard, and migrated data is keyed by it.
    String id = "zzzzzzzz";
    int h = id.hashCode();
    assertTrue(h < 0 && h % 100 != 0 && Math.floorMod(h, 100) != -(h % 100));
    assertEquals(Integer.toString(-(h % 100)), HashCodeMessageExtractor.shardIdFor(id, 100));
    assertEquals(Integer.toString(Math.abs(h) % 100), HashCodeMessageExtractor.shardIdFor(id, 100));
  }

  @Test
  void constructorRejectsFewerThanOneShard() {
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
        () -> new HashCodeMessageExtractor<>(0));
    assertEquals("numberOfShards must be at least 1, got 0", zero.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new HashCodeMessageExtractor<>(Integer.MIN_VALUE));
    assertEquals(42, new HashCodeMessageExtractor<>(42).numberOfShards());
  }

  @Test
  void envelopeAccessors() {
    HashCodeMessageExtractor<Integer> extractor = new HashCodeMessageExtractor<>(10);
    ShardingEnvelope<Integer> envelope = new ShardingEnvelope<>("id-1", 12345);
    assertEquals("id-1", extractor.entityId(envelope));
    assertSame(envelope.message(), extractor.unwrapMessage(envelope));
    assertEquals(HashCodeMessageExtractor.shardIdFor("id-1", 10), extractor.shardId("id-1"));
  }
}
