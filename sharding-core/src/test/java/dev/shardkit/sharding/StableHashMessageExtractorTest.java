package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.util.Murmur3;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class StableHashMessageExtractorTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] bytes(int... values) {
    byte[] b = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      b[i] = (byte) values[i];
    }
    return b;
  }

  // ---- Murmur3 against published MurmurHash3_x86_32 vectors

  @Test
  void murmur3MatchesPublishedVectorsWithSeedZero() {
    assertEquals(0, Murmur3.hash32(new byte[0]));
    assertEquals(0x2362F9DE, Murmur3.hash32(bytes(0, 0, 0, 0)));
    assertEquals(0x85F0B427, Murmur3.hash32(bytes(0, 0, 0)));
    assertEquals(0x30F4C306, Murmur3.hash32(bytes(0, 0)));
    assertEquals(0x514E28B7, Murmur3.hash32(bytes(0)));
    assertEquals(0x76293B50, Murmur3.hash32(bytes(0xff, 0xff, 0xff, 0xff)));
    assertEquals(0xF55B516B, Murmur3.hash32(bytes(0x21, 0x43, 0x65, 0x87)));
    assertEquals(0x7E4A8634, Murmur3.hash32(bytes(0x21, 0x43, 0x65)));
    assertEquals(0xA0F7B07A, Murmur3.hash32(bytes(0x21, 0x43)));
    assertEquals(0x72661CF4, Murmur3.hash32(bytes(0x21)));
    assertEquals(0x2E4FF723, Murmur3.hash32(utf8("The quick brown fox jumps over the lazy dog")));
  }

  @Test
  void murmur3MatchesPublishedVectorsWithOtherSeeds() {
    assertEquals(0x514E28B7, Murmur3.hash32(new byte[0], 1));
    assertEquals(0x81F16F39, Murmur3.hash32(new byte[0], 0xffffffff));
    assertEquals(0x2362F9DE, Murmur3.hash32(bytes(0x21, 0x43, 0x65, 0x87), 0x5082EDEE));
    int seed = 0x9747b28c;
    assertEquals(0x5A97808A, Murmur3.hash32(utf8("aaaa"), seed));
    assertEquals(0x283E0130, Murmur3.hash32(utf8("aaa"), seed));
    assertEquals(0x5D211726, Murmur3.hash32(utf8("aa"), seed));
    assertEquals(0x7FA09EA6, Murmur3.hash32(utf8("a"), seed));
    assertEquals(0xF0478627, Murmur3.hash32(utf8("abcd"), seed));
    assertEquals(0xC84A62DD, Murmur3.hash32(utf8("abc"), seed));
    assertEquals(0x74875592, Murmur3.hash32(utf8("ab"), seed));
    assertEquals(0x24884CBA, Murmur3.hash32(utf8("Hello, world!"), seed));
    assertEquals(0x2FA826CD, Murmur3.hash32(utf8("The quick brown fox jumps over the lazy dog"), seed));
  }

  @Test
  void murmur3AgreesWithIndependentImplementationsOnRandomInput() {
    Random random = new Random(31337);
    for (int i = 0; i < 50_000; i++) {
      // Every length mod 4 and bytes with the sign bit set: the tail and sign-extension paths.
      byte[] data = new byte[random.nextInt(67)];
      random.nextBytes(data);
      int seed = i % 5 == 0 ? 0 : random.nextInt();
      int expected = referenceMurmur3(data, seed);
      assertEquals(expected, Murmur3.hash32(data, seed), () -> "length " + data.length);
      assertEquals(expected, scala.util.hashing.MurmurHash3$.MODULE$.bytesHash(data, seed));
      if (seed == 0) {
        assertEquals(expected, Murmur3.hash32(data));
      }
    }
  }

  @Test
  void murmur3OfAStringIsTheHashOfItsUtf8Bytes() {
    Random random = new Random(2718);
    for (int i = 0; i < 50_000; i++) {
      // ASCII ids (hashed from their characters), and ids with any char, lone surrogates included
      // (encoded first): every length mod 4 on both paths.
      char[] chars = new char[random.nextInt(41)];
      boolean ascii = i % 2 == 0;
      for (int c = 0; c < chars.length; c++) {
        chars[c] = ascii ? (char) random.nextInt(0x80) : (char) random.nextInt(Character.MAX_VALUE + 1);
      }
      String id = new String(chars);
      assertEquals(referenceMurmur3(utf8(id), 0), Murmur3.hash32Utf8(id), () -> "id of " + id.length() + " chars");
    }
    // The last ASCII character and the first that is not.
    assertEquals(referenceMurmur3(utf8("abc\u007f"), 0), Murmur3.hash32Utf8("abc\u007f"));
    assertEquals(referenceMurmur3(utf8("abc\u0080"), 0), Murmur3.hash32Utf8("abc\u0080"));
  }

  /**
   * MurmurHash3_x86_32 from the algorithm's description, in unsigned 64-bit arithmetic rather than
   * int overflow, so that a mistake in {@link Murmur3} is unlikely to be repeated here.
   */
  private static int referenceMurmur3(byte[] data, int seed) {
    final long mask = 0xffffffffL;
    long h = seed & mask;
    int nblocks = data.length / 4;
    for (int b = 0; b < nblocks; b++) {
      long k = 0;
      for (int j = 3; j >= 0; j--) {
        k = (k << 8) | (data[b * 4 + j] & 0xff);
      }
      k = (k * 0xcc9e2d51L) & mask;
      k = ((k << 15) | (k >>> 17)) & mask;
      k = (k * 0x1b873593L) & mask;
      h ^= k;
      h = ((h << 13) | (h >>> 19)) & mask;
      h = (h * 5 + 0xe6546b64L) & mask;
    }
    long k = 0;
    int rest = data.length % 4;
    for (int j = rest - 1; j >= 0; j--) {
      k = (k << 8) | (data[nblocks * 4 + j] & 0xff);
    }
    if (rest > 0) {
      k = (k * 0xcc9e2d51L) & mask;
      k = ((k << 15) | (k >>> 17)) & mask;
      k = (k * 0x1b873593L) & mask;
      h ^= k;
    }
    h ^= data.length;
    h ^= h >>> 16;
    h = (h * 0x85ebca6bL) & mask;
    h ^= h >>> 13;
    h = (h * 0xc2b2ae35L) & mask;
    h ^= h >>> 16;
    return (int) h;
  }

  // ---- shard ids

  @Test
  void shardIdsArePinnedSoEveryVersionAndNodeAgrees() {
    // Values computed outside Java; a change here moves entities between shards in running clusters.
    assertEquals("0", StableHashMessageExtractor.shardIdFor("", 1000));
    assertEquals("706", StableHashMessageExtractor.shardIdFor("abc", 1000));
    assertEquals("6", StableHashMessageExtractor.shardIdFor("abc", 7));
    assertEquals("547", StableHashMessageExtractor.shardIdFor("The quick brown fox jumps over the lazy dog", 1000));
    assertEquals("125", StableHashMessageExtractor.shardIdFor("counter-42", 1000));
    assertEquals("6", StableHashMessageExtractor.shardIdFor("counter-42", 7));
  }

  @Test
  void negativeHashesGiveNonNegativeShardIds() {
    // "abc" hashes to 0xb3dd93fa, negative as an int: floorMod, not '%' or Math.abs.
    assertTrue(Murmur3.hash32(utf8("abc")) < 0);
    assertEquals(Integer.toString(Math.floorMod(0xb3dd93fa, 10)), StableHashMessageExtractor.shardIdFor("abc", 10));
    assertEquals("6", StableHashMessageExtractor.shardIdFor("abc", 10));
  }

  @Test
  void shardIdsAreInRangeAndCanonical() {
    Random random = new Random(99);
    int[] counts = {1, 2, 3, 7, 100, 1000, 4096, Integer.MAX_VALUE};
    for (int n : counts) {
      StableHashMessageExtractor<Object> extractor = new StableHashMessageExtractor<>(n);
      for (int i = 0; i < 20_000; i++) {
        String id = i % 2 == 0 ? "entity-" + i : Long.toHexString(random.nextLong());
        String shard = extractor.shardId(id);
        int value = Integer.parseInt(shard);
        assertTrue(value >= 0 && value < n, () -> id + " -> " + shard + " of " + n);
        // Shard ids become actor names and map keys: "07" and "7" must never both occur.
        assertEquals(Integer.toString(value), shard);
        assertEquals(Math.floorMod(referenceMurmur3(utf8(id), 0), n), value);
      }
    }
    assertEquals("0", new StableHashMessageExtractor<>(1).shardId("anything"));
  }

  @Test
  void sameIdGivesSameShardEveryTime() {
    StableHashMessageExtractor<Object> a = new StableHashMessageExtractor<>(1000);
    StableHashMessageExtractor<Object> b = new StableHashMessageExtractor<>(1000);
    for (int i = 0; i < 1000; i++) {
      String id = "user-" + i;
      assertEquals(a.shardId(id), b.shardId(id));
      assertEquals(a.shardId(id), StableHashMessageExtractor.shardIdFor(id, 1000));
      // A fresh String with the same content (no identity or cached-hash effects).
      assertEquals(a.shardId(id), a.shardId(new String(id.toCharArray())));
    }
  }

  @Test
  void anExtractorGivesEachShardOneIdString() {
    // The id is made once per shard, so that messages sent by envelope allocate none.
    StableHashMessageExtractor<Object> extractor = new StableHashMessageExtractor<>(1000);
    assertSame(extractor.shardId("counter-42"), extractor.shardId(new String("counter-42".toCharArray())));
    assertEquals("125", extractor.shardId("counter-42"));
    // Beyond the kept ids, still the right id.
    StableHashMessageExtractor<Object> many = new StableHashMessageExtractor<>(Integer.MAX_VALUE);
    for (int i = 0; i < 1000; i++) {
      String id = "user-" + i;
      assertEquals(StableHashMessageExtractor.shardIdFor(id, Integer.MAX_VALUE), many.shardId(id));
    }
  }

  @Test
  void distributionOver1000ShardsIsEven() {
    int shards = 1000;
    int ids = 100_000;
    int[] hits = new int[shards];
    StableHashMessageExtractor<Object> extractor = new StableHashMessageExtractor<>(shards);
    for (int i = 0; i < ids; i++) {
      hits[Integer.parseInt(extractor.shardId("entity-" + i))]++;
    }
    double expected = (double) ids / shards;
    double chiSquare = 0;
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (int h : hits) {
      chiSquare += (h - expected) * (h - expected) / expected;
      min = Math.min(min, h);
      max = Math.max(max, h);
    }
    // 999 degrees of freedom: mean 999, standard deviation about 44.7. The bound is about five
    // deviations out; a skewed hash (say, only the last bytes mixed) lands in the thousands.
    assertTrue(chiSquare < 1230, "chi-square " + chiSquare);
    assertTrue(min >= 55 && max <= 150, "min " + min + ", max " + max);
  }

  @Test
  void similarIdsSpreadOverManyShards() {
    // Sequential ids differing in one character must not cluster, or one node gets all new users.
    StableHashMessageExtractor<Object> extractor = new StableHashMessageExtractor<>(1000);
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (int i = 0; i < 10; i++) {
      seen.add(extractor.shardId("order-" + i));
    }
    assertTrue(seen.size() >= 9, seen.toString());
  }

  @Test
  void unicodeIdsHashTheirUtf8Bytes() {
    String[] ids = {"日本語", "é", "e\u0301", "\uD83D\uDE00", "Ωmega-∑", "ñandú-🐧-42", "Ünïcödé"};
    for (String id : ids) {
      for (int n : new int[] {7, 1000, 65536}) {
        assertEquals(Integer.toString(Math.floorMod(referenceMurmur3(utf8(id), 0), n)),
            StableHashMessageExtractor.shardIdFor(id, n), id);
      }
    }
    // Pinned, computed outside Java from the UTF-8 bytes.
    assertEquals("583", StableHashMessageExtractor.shardIdFor("日本語", 1000));
    assertEquals("495", StableHashMessageExtractor.shardIdFor("é", 1000));
    assertEquals("250", StableHashMessageExtractor.shardIdFor("\uD83D\uDE00", 1000));
    // Precomposed and decomposed é are different ids with different bytes; no normalisation happens.
    assertNotEquals(Murmur3.hash32(utf8("é")), Murmur3.hash32(utf8("e\u0301")));
    // Another charset would give another shard: proves the bytes are UTF-8, not UTF-16 or Latin-1.
    assertNotEquals(Integer.toString(Math.floorMod(
            referenceMurmur3("日本語".getBytes(StandardCharsets.UTF_16LE), 0), 1000)),
        StableHashMessageExtractor.shardIdFor("日本語", 1000));
    assertNotEquals(Integer.toString(Math.floorMod(
            referenceMurmur3("é".getBytes(StandardCharsets.ISO_8859_1), 0), 1000)),
        StableHashMessageExtractor.shardIdFor("é", 1000));
  }

  @Test
  void constructorRejectsFewerThanOneShard() {
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
        () -> new StableHashMessageExtractor<>(0));
    assertEquals("numberOfShards must be at least 1, got 0", zero.getMessage());
    IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
        () -> new StableHashMessageExtractor<>(-3));
    assertTrue(negative.getMessage().contains("-3"), negative.getMessage());
    assertEquals(1, new StableHashMessageExtractor<>(1).numberOfShards());
    assertEquals(128, new StableHashMessageExtractor<>(128).numberOfShards());
  }

  @Test
  void envelopeAccessors() {
    StableHashMessageExtractor<String> extractor = new StableHashMessageExtractor<>(10);
    ShardingEnvelope<String> envelope = new ShardingEnvelope<>("id-1", "hello");
    assertEquals("id-1", extractor.entityId(envelope));
    assertSame(envelope.message(), extractor.unwrapMessage(envelope));
    assertEquals(StableHashMessageExtractor.shardIdFor("id-1", 10), extractor.shardId("id-1"));
  }
}
