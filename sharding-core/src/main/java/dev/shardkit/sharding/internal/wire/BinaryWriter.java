package dev.shardkit.sharding.internal.wire;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.Arrays;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Appends the primitives of shardkit's binary formats ({@link ShardingSerializer}'s, and the
 * ddata module's coordinator state record) to a growing byte array. Not thread-safe: one writer
 * per message (or per batch of messages).
 *
 * <p>Unsigned varints are little-endian base-128 (7 bits per byte, high bit set on every byte
 * but the last); signed ints are zigzag-mapped first so that small negative numbers stay short.
 * Strings are a varint of (byte length + 1), 0 standing for null, followed by the bytes. A
 * <b>section</b> is a varint length followed by that many bytes, so that a reader can skip what
 * it does not know at the end of one ({@link BinaryReader#readSection}).
 *
 * <p>Internal API: public only so that shardkit's other modules can write the same primitives;
 * not for applications, and it may change in any release.
 */
@InternalApi
public final class BinaryWriter {
  private byte[] buf;
  private int pos;

  public BinaryWriter(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  /** Writes a non-negative int in 1 to 5 bytes. */
  public void writeVarUInt(int value) {
    if (value < 0) {
      throw new IllegalArgumentException("a length or count cannot be negative, got " + value);
    }
    ensure(5);
    while ((value & ~0x7F) != 0) {
      buf[pos++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    buf[pos++] = (byte) value;
  }

  /** Writes any int, zigzag-encoded, in 1 to 5 bytes. */
  public void writeVarInt(int value) {
    int zigzag = (value << 1) ^ (value >> 31);
    ensure(5);
    while ((zigzag & ~0x7F) != 0) {
      buf[pos++] = (byte) ((zigzag & 0x7F) | 0x80);
      zigzag >>>= 7;
    }
    buf[pos++] = (byte) zigzag;
  }

  /** Writes a non-negative long in 1 to 10 bytes. */
  public void writeVarULong(long value) {
    if (value < 0) {
      throw new IllegalArgumentException("a sequence number cannot be negative, got " + value);
    }
    ensure(10);
    while ((value & ~0x7FL) != 0) {
      buf[pos++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    buf[pos++] = (byte) value;
  }

  public void writeByte(byte value) {
    ensure(1);
    buf[pos++] = value;
  }

  /** Writes a length-prefixed byte array (never null). */
  public void writeBytes(byte[] bytes) {
    writeBytes(bytes, 0, bytes.length);
  }

  /**
   * Writes a string, or null, as UTF-8. An unpaired surrogate, which strict UTF-8 cannot carry,
   * is written in the 3-byte form a code point of its value would take (as in WTF-8) instead of
   * being replaced by '?': entity and shard ids must survive the trip exactly, or a message would
   * reach a different entity than the one it was sent to.
   */
  public void writeString(@Nullable String s) {
    if (s == null) {
      writeVarUInt(0);
      return;
    }
    int n = s.length();
    long byteLength = encodedLength(s, n);
    if (byteLength >= Integer.MAX_VALUE) {
      throw new IllegalArgumentException("string too long to serialize: " + byteLength + " UTF-8 bytes");
    }
    writeVarUInt((int) byteLength + 1);
    ensure((int) byteLength);
    byte[] b = buf;
    int p = pos;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        b[p++] = (byte) c;
      } else if (c < 0x800) {
        b[p++] = (byte) (0xC0 | (c >> 6));
        b[p++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, s.charAt(++i));
        b[p++] = (byte) (0xF0 | (cp >> 18));
        b[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
        b[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
        b[p++] = (byte) (0x80 | (cp & 0x3F));
      } else {
        b[p++] = (byte) (0xE0 | (c >> 12));
        b[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        b[p++] = (byte) (0x80 | (c & 0x3F));
      }
    }
    pos = p;
  }

  /**
   * Writes a section: a length, then what {@code content} writes. The length takes one byte
   * while the content is under 128 bytes; a longer content is moved up to make room for the
   * longer length, so no intermediate array is needed.
   */
  public void writeSection(Consumer<BinaryWriter> content) {
    int lengthAt = beginSection();
    content.accept(this);
    endSection(lengthAt);
  }

  /**
   * Starts a section whose content the caller writes next, for a writer that cannot pass it as a
   * lambda (or would rather not allocate one per element); {@link #endSection} finishes it.
   *
   * @return where its length goes, for {@link #endSection}
   */
  public int beginSection() {
    ensure(1);
    return pos++;
  }

  /** Finishes the section {@link #beginSection} started at {@code lengthAt}: writes its length. */
  public void endSection(int lengthAt) {
    int length = pos - lengthAt - 1;
    int extra = varUIntSize(length) - 1;
    if (extra > 0) {
      ensure(extra);
      System.arraycopy(buf, lengthAt + 1, buf, lengthAt + 1 + extra, length);
      pos += extra;
    }
    int p = lengthAt;
    int value = length;
    while ((value & ~0x7F) != 0) {
      buf[p++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    buf[p] = (byte) value;
  }

  /** Writes {@code length} bytes of {@code bytes} from {@code offset}, length-prefixed (as {@link #writeBytes(byte[])}). */
  public void writeBytes(byte[] bytes, int offset, int length) {
    writeVarUInt(length);
    ensure(length);
    System.arraycopy(bytes, offset, buf, pos, length);
    pos += length;
  }

  /** How many bytes were written so far. */
  public int position() {
    return pos;
  }

  /**
   * Forgets what was written from {@code position} on, so that the next write goes there.
   *
   * @throws IllegalArgumentException if {@code position} is negative or beyond what was written
   */
  public void truncate(int position) {
    if (position < 0 || position > pos) {
      throw new IllegalArgumentException("cannot truncate to " + position + " with " + pos + " bytes written");
    }
    pos = position;
  }

  /**
   * The array the bytes written so far are in, from 0 to {@link #position}. A later write may
   * move them to a larger array; the bytes already in this one are never changed, except those
   * beyond a {@link #truncate}'s position when writing goes on.
   */
  public byte[] buffer() {
    return buf;
  }

  private static int varUIntSize(int value) {
    int size = 1;
    while ((value & ~0x7F) != 0) {
      value >>>= 7;
      size++;
    }
    return size;
  }

  /** The bytes written so far, in an array of exactly that length. */
  public byte[] toByteArray() {
    return pos == buf.length ? buf : Arrays.copyOf(buf, pos);
  }

  private static long encodedLength(String s, int n) {
    long length = n;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x80) {
        if (c < 0x800) {
          length += 1;
        } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
          // Two chars become four bytes.
          length += 2;
          i++;
        } else {
          length += 2;
        }
      }
    }
    return length;
  }

  private void ensure(int extra) {
    int needed = pos + extra;
    if (needed < 0) {
      throw new IllegalArgumentException("message too large to serialize");
    }
    if (needed > buf.length) {
      int grown = buf.length << 1;
      buf = Arrays.copyOf(buf, grown < 0 ? Integer.MAX_VALUE - 8 : Math.max(grown, needed));
    }
  }
}
