package dev.shardkit.sharding.internal.util;

import dev.shardkit.sharding.internal.InternalApi;
import java.nio.charset.StandardCharsets;

/**
 * MurmurHash3, 32-bit x86 variant, seed 0: a fast hash whose output depends only on the input
 * bytes, which is what shard ids need (unlike {@code Object.hashCode}).
 *
 * <p>Internal API: public for {@code StableHashMessageExtractor}; not for applications, and it may
 * change in any release.
 */
@InternalApi
public final class Murmur3 {
  private static final int C1 = 0xcc9e2d51;
  private static final int C2 = 0x1b873593;

  private Murmur3() {}

  public static int hash32(byte[] data) {
    return hash32(data, 0);
  }

  /**
   * The hash of {@code text}'s UTF-8 bytes with seed 0, the same as {@code hash32(text.getBytes(UTF_8))}.
   * An id of ASCII characters only (each its own UTF-8 byte) is hashed from its characters, without
   * encoding it: the extractor computes a shard id for every message sent by envelope.
   */
  public static int hash32Utf8(String text) {
    int length = text.length();
    // Every char ORed together: one at or above 0x80 means the bytes are not the chars, and the
    // hash made along the way is thrown away.
    int seen = 0;
    int h1 = 0;
    int blocks = length >>> 2;
    for (int i = 0; i < blocks; i++) {
      int off = i << 2;
      char c0 = text.charAt(off);
      char c1 = text.charAt(off + 1);
      char c2 = text.charAt(off + 2);
      char c3 = text.charAt(off + 3);
      seen |= c0 | c1 | c2 | c3;
      h1 = mixH1(h1, c0 | (c1 << 8) | (c2 << 16) | (c3 << 24));
    }
    int tail = blocks << 2;
    int k1 = 0;
    for (int i = length - 1; i >= tail; i--) {
      char c = text.charAt(i);
      seen |= c;
      k1 = (k1 << 8) | c;
    }
    if (seen >= 0x80) {
      return hash32(text.getBytes(StandardCharsets.UTF_8), 0);
    }
    if (tail < length) {
      h1 ^= mixK1(k1);
    }
    return finish(h1, length);
  }

  @SuppressWarnings("fallthrough") // the tail bytes accumulate, as the algorithm specifies
  public static int hash32(byte[] data, int seed) {
    int h1 = seed;
    int length = data.length;
    int blocks = length >>> 2;
    for (int i = 0; i < blocks; i++) {
      int off = i << 2;
      int k1 = (data[off] & 0xff) | ((data[off + 1] & 0xff) << 8) | ((data[off + 2] & 0xff) << 16) | (data[off + 3] << 24);
      h1 = mixH1(h1, k1);
    }
    int tail = blocks << 2;
    int k1 = 0;
    switch (length & 3) {
      case 3:
        k1 ^= (data[tail + 2] & 0xff) << 16;
        // fall through
      case 2:
        k1 ^= (data[tail + 1] & 0xff) << 8;
        // fall through
      case 1:
        k1 ^= data[tail] & 0xff;
        h1 ^= mixK1(k1);
        break;
      default:
        break;
    }
    return finish(h1, length);
  }

  private static int mixH1(int h1, int k1) {
    h1 ^= mixK1(k1);
    h1 = Integer.rotateLeft(h1, 13);
    return h1 * 5 + 0xe6546b64;
  }

  private static int finish(int h1, int length) {
    h1 ^= length;
    h1 ^= h1 >>> 16;
    h1 *= 0x85ebca6b;
    h1 ^= h1 >>> 13;
    h1 *= 0xc2b2ae35;
    h1 ^= h1 >>> 16;
    return h1;
  }

  private static int mixK1(int k1) {
    k1 *= C1;
    k1 = Integer.rotateLeft(k1, 15);
    return k1 * C2;
  }
}
