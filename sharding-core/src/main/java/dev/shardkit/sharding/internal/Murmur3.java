package dev.shardkit.sharding.internal;

/**
 * MurmurHash3, 32-bit x86 variant, seed 0: a fast hash whose output depends only on the input
 * bytes, which is what shard ids need (unlike {@code Object.hashCode}).
 *
 * <p>Internal API: public for {@code StableHashMessageExtractor}; not for applications, and it may
 * change in any release.
 */
public final class Murmur3 {
  private static final int C1 = 0xcc9e2d51;
  private static final int C2 = 0x1b873593;

  private Murmur3() {}

  public static int hash32(byte[] data) {
    return hash32(data, 0);
  }

  @SuppressWarnings("fallthrough") // the tail bytes accumulate, as the algorithm specifies
  public static int hash32(byte[] data, int seed) {
    int h1 = seed;
    int length = data.length;
    int blocks = length >>> 2;
    for (int i = 0; i < blocks; i++) {
      int off = i << 2;
      int k1 = (data[off] & 0xff) | ((data[off + 1] & 0xff) << 8) | ((data[off + 2] & 0xff) << 16) | (data[off + 3] << 24);
      h1 ^= mixK1(k1);
      h1 = Integer.rotateLeft(h1, 13);
      h1 = h1 * 5 + 0xe6546b64;
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
