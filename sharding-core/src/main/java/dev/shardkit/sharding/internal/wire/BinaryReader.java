package dev.shardkit.sharding.internal.wire;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.Arrays;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Reads what {@link BinaryWriter} wrote. Not thread-safe: one reader per message.
 *
 * <p>Every read checks the bytes it needs are there and throws {@link IllegalArgumentException}
 * naming the offset when they are not, so that a truncated or corrupt message fails with a
 * readable error instead of an {@code ArrayIndexOutOfBoundsException}, and so that a corrupt
 * length can never make us allocate more than the message itself holds. Inside a
 * {@linkplain #readSection section} "the end" is the section's end: a read cannot run into what
 * follows it.
 *
 * <p>Internal API: public only so that shardkit's other modules can read the same primitives;
 * not for applications, and it may change in any release.
 */
@InternalApi
public final class BinaryReader {
  private final byte[] buf;
  private int pos;
  /** Where the innermost section being read ends (the message's end outside any section). */
  private int limit;

  public BinaryReader(byte[] bytes) {
    this.buf = bytes;
    this.limit = bytes.length;
  }

  /** Bytes not read yet (in the current section); an upper bound on how many elements it can still hold. */
  public int remaining() {
    return limit - pos;
  }

  /**
   * Reads a section: its length, then {@code content} reads from it; whatever the content
   * leaves unread (fields a later version appended) is skipped.
   *
   * @throws IllegalArgumentException if the length runs past the end, or {@code content} tries
   *     to read past the section's end
   */
  public <T> T readSection(Function<BinaryReader, T> content) {
    int length = readLength();
    int end = pos + length;
    int outer = limit;
    limit = end;
    T value;
    try {
      value = content.apply(this);
    } finally {
      limit = outer;
    }
    pos = end;
    return value;
  }

  public int readVarUInt() {
    int value = readRawVarint();
    if (value < 0) {
      throw corrupt("a length or count of " + Integer.toUnsignedString(value));
    }
    return value;
  }

  public int readVarInt() {
    int zigzag = readRawVarint();
    return (zigzag >>> 1) ^ -(zigzag & 1);
  }

  public long readVarULong() {
    long value = 0;
    for (int shift = 0; shift < 63; shift += 7) {
      if (pos >= limit) {
        throw corrupt("a varint cut off by the end of the message");
      }
      int b = buf[pos++];
      value |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw corrupt("a long varint longer than 9 bytes");
  }

  public byte readByte() {
    if (pos >= limit) {
      throw corrupt("a byte cut off by the end of the message");
    }
    return buf[pos++];
  }

  public byte[] readBytes() {
    int length = readLength();
    byte[] bytes = Arrays.copyOfRange(buf, pos, pos + length);
    pos += length;
    return bytes;
  }

  /** Reads a string or null; accepts the surrogate encoding {@link BinaryWriter#writeString} uses. */
  public @Nullable String readString() {
    int lengthPlusOne = readVarUInt();
    if (lengthPlusOne == 0) {
      return null;
    }
    int length = lengthPlusOne - 1;
    if (length > remaining()) {
      throw corrupt("a string of " + length + " bytes with only " + remaining() + " left");
    }
    int start = pos;
    int end = start + length;
    // UTF-8 never takes fewer bytes than UTF-16 takes chars, so this is always big enough.
    char[] out = new char[length];
    int o = 0;
    int p = start;
    while (p < end) {
      int b = buf[p++] & 0xFF;
      if (b < 0x80) {
        out[o++] = (char) b;
      } else if ((b & 0xE0) == 0xC0) {
        out[o++] = shortest(((b & 0x1F) << 6) | continuation(p++, end), 0x80);
      } else if ((b & 0xF0) == 0xE0) {
        int c1 = continuation(p++, end);
        int c2 = continuation(p++, end);
        out[o++] = shortest(((b & 0x0F) << 12) | (c1 << 6) | c2, 0x800);
      } else if ((b & 0xF8) == 0xF0) {
        int c1 = continuation(p++, end);
        int c2 = continuation(p++, end);
        int c3 = continuation(p++, end);
        int cp = ((b & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
        if (cp < Character.MIN_SUPPLEMENTARY_CODE_POINT || cp > Character.MAX_CODE_POINT) {
          throw corrupt("an invalid code point U+" + Integer.toHexString(cp).toUpperCase() + " in a string");
        }
        out[o++] = Character.highSurrogate(cp);
        out[o++] = Character.lowSurrogate(cp);
      } else {
        throw corrupt("the byte 0x" + Integer.toHexString(b) + ", which cannot start a UTF-8 sequence,");
      }
    }
    pos = end;
    return new String(out, 0, o);
  }

  /**
   * Reads a string that a message cannot do without: an id, a type name, an actor ref.
   *
   * @param field the field's name, for the error
   * @throws IllegalArgumentException naming {@code field} if it is null or empty, or if the bytes
   *     are truncated or not UTF-8 (as {@link #readString})
   */
  public String requiredString(String field) {
    return required(readString(), field);
  }

  /**
   * The rule for every required string field of shardkit's binary formats, on both sides: it is
   * neither null nor empty.
   *
   * @return {@code value}
   * @throws IllegalArgumentException naming {@code field} otherwise
   */
  public static String required(String value, String field) {
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("the required field [" + field + "] is " + (value == null ? "null" : "empty"));
    }
    return value;
  }

  /**
   * A char decoded from a 2- or 3-byte sequence, refused if a shorter sequence holds it: the
   * writer never writes such an overlong form, and accepting it would give one string two
   * encodings (two ids that look alike in the log but are not equal on the wire).
   */
  private char shortest(int value, int least) {
    if (value < least) {
      throw corrupt("an overlong UTF-8 sequence for U+" + Integer.toHexString(value).toUpperCase());
    }
    return (char) value;
  }

  private int continuation(int at, int end) {
    if (at >= end) {
      throw corrupt("a string ending in the middle of a UTF-8 sequence");
    }
    int b = buf[at] & 0xFF;
    if ((b & 0xC0) != 0x80) {
      throw corrupt("the byte 0x" + Integer.toHexString(b) + " where a UTF-8 continuation byte belongs");
    }
    return b & 0x3F;
  }

  private int readLength() {
    int length = readVarUInt();
    if (length > remaining()) {
      throw corrupt("a length of " + length + " with only " + remaining() + " bytes left");
    }
    return length;
  }

  private int readRawVarint() {
    int value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (pos >= limit) {
        throw corrupt("a varint cut off by the end of the message");
      }
      int b = buf[pos++];
      value |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw corrupt("a varint longer than 5 bytes");
  }

  private IllegalArgumentException corrupt(String what) {
    return new IllegalArgumentException("truncated or corrupt message: found " + what + " at offset " + pos + " of "
        + buf.length + (limit < buf.length ? " (in a section ending at " + limit + ")" : ""));
  }
}
