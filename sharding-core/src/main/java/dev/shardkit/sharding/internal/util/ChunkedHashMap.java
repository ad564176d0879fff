package dev.shardkit.sharding.internal.util;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.Map;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * An immutable map from string keys to values that changes one entry by copying only the small
 * chunk of the table that holds it, and looks a key up nearly as fast as a
 * {@link java.util.HashMap}: the region's routing table, read by every caller's message and changed
 * whenever one shard's home does. A general-purpose persistent map (a trie) shares more, but needs
 * more dependent memory reads per lookup; this one reads the array of chunks, then one chunk,
 * whose key and value sit side by side.
 *
 * <p>Keys hash to one of a power-of-two number of chunks, each a small open-addressing table
 * (keys and values interleaved, linear probing) kept at most half full. A change copies the array
 * of chunks (one reference per about {@value #PER_CHUNK} keys) and the one chunk it touches; when
 * the map outgrows its chunks it is rebuilt with twice as many, so that cost is spread over the
 * insertions that caused it.
 *
 * <p>Guarantees: never changes once made, so it may be shared between threads without locks;
 * {@link #get} takes constant time; {@link #with} and {@link #without} take time proportional to
 * the number of chunks, about the size divided by {@value #PER_CHUNK} (amortized over growth);
 * {@link #withAll} and an {@link Editor} copy each chunk they touch once, and grow the map at most
 * once, up front. Neither keys nor values may be null.
 *
 * @param <V> the value type
 */
@InternalApi
public final class ChunkedHashMap<V> {
  /** The keys a chunk holds on average before the map doubles its chunks. */
  private static final int PER_CHUNK = 32;
  /** Slots (key and value pairs) of the smallest chunk. */
  private static final int MIN_SLOTS = 4;
  // Two chunks at least: a shift by 32 would be a shift by 0 in Java, so one chunk would need a branch.
  private static final int MIN_BITS = 1;
  private static final ChunkedHashMap<Object> EMPTY =
      new ChunkedHashMap<>(new Object[][] {new Object[2 * MIN_SLOTS], new Object[2 * MIN_SLOTS]}, 0, MIN_BITS);

  /** Each chunk: key at {@code 2i}, its value at {@code 2i + 1}, null keys for free slots. */
  private final Object[][] chunks;
  private final int size;
  /** 32 minus log2 of the number of chunks: a hash shifted right by it gives its chunk. */
  private final int chunkShift;

  private ChunkedHashMap(Object[][] chunks, int size, int chunkBits) {
    this.chunks = chunks;
    this.size = size;
    this.chunkShift = 32 - chunkBits;
  }

  @SuppressWarnings("unchecked")
  public static <V> ChunkedHashMap<V> empty() {
    return (ChunkedHashMap<V>) EMPTY;
  }

  int size() {
    return size;
  }

  /** The value of {@code key}, or null when it has none. */
  @SuppressWarnings("unchecked")
  public @Nullable V get(String key) {
    int h = hash(key);
    Object[] chunk = chunks[h >>> chunkShift];
    int mask = chunk.length - 2;
    for (int i = (h << 1) & mask; ; i = (i + 2) & mask) {
      Object k = chunk[i];
      if (k == null) {
        return null;
      }
      if (k == key || k.equals(key)) {
        return (V) chunk[i + 1];
      }
    }
  }

  public boolean contains(String key) {
    return get(key) != null;
  }

  /**
   * This map with {@code key} mapped to {@code value}.
   *
   * @throws NullPointerException if the key or the value is null
   */
  public ChunkedHashMap<V> with(String key, V value) {
    checkValue(key, value);
    boolean added = get(key) == null;
    if (added && size + 1 > chunks.length * PER_CHUNK) {
      return rebuilt(chunkBits() + 1, 0).with(key, value);
    }
    int h = hash(key);
    int c = h >>> chunkShift;
    Object[][] copy = chunks.clone();
    copy[c] = withRoom(chunks[c], added ? 1 : 0);
    put(copy[c], key, h, value);
    return new ChunkedHashMap<>(copy, added ? size + 1 : size, chunkBits());
  }

  /**
   * This map with every entry of {@code entries} added or replaced, in one change.
   *
   * @throws NullPointerException if a key or a value is null
   */
  ChunkedHashMap<V> withAll(Map<String, ? extends V> entries) {
    if (entries.isEmpty()) {
      return this;
    }
    Editor<V> editor = edit(entries.size());
    entries.forEach(editor::put);
    return editor.done();
  }

  /**
   * A change of many entries at once, made on a private copy of the chunks it touches: with room
   * made up front for {@code more} new keys (an estimate; more or fewer are fine), so that the
   * map grows once rather than doubling along the way.
   *
   * @throws IllegalArgumentException if {@code more} is negative
   */
  public Editor<V> edit(int more) {
    if (more < 0) {
      throw new IllegalArgumentException("the keys to make room for must not be negative, got " + more);
    }
    int bits = chunkBits();
    while (size + (long) more > (long) (1 << bits) * PER_CHUNK) {
      bits++;
    }
    return new Editor<>(this, bits, more);
  }

  /**
   * Many entries put into one map in a single pass, each chunk copied once when it is first
   * touched: how a map is built from or changed by a large batch without a copy per entry. Not
   * thread-safe, and used once: {@link #done} hands the chunks over to the new map, which then
   * never changes; the map it was made from never changes either.
   *
   * @param <V> the value type
   */
  public static final class Editor<V> {
    private final ChunkedHashMap<V> from;
    private final Object[][] chunks;
    private final int bits;
    private final int shift;
    /** Each chunk's count of keys once it is private to this editor; -1 while it is still shared with {@code from}. */
    private final int[] counts;
    private int size;
    private boolean changed;
    private boolean done;

    private Editor(ChunkedHashMap<V> from, int bits, int more) {
      this.from = from;
      this.bits = bits;
      this.shift = 32 - bits;
      this.size = from.size;
      this.counts = new int[1 << bits];
      if (bits == from.chunkBits()) {
        chunks = from.chunks.clone();
        java.util.Arrays.fill(counts, -1);
      } else {
        // A rebuilt map's chunks are held by no other map: private from the start, sized for
        // their share of the new keys so that few of them grow while the batch goes in.
        chunks = from.rebuilt(bits, more >> bits).chunks;
        for (int c = 0; c < chunks.length; c++) {
          counts[c] = count(chunks[c]);
        }
      }
    }

    /**
     * Maps {@code key} to {@code value} in the map being made.
     *
     * @return the key's value before (in the map this editor started from, or put earlier by it),
     *     or null when the key is new
     * @throws NullPointerException if the key or the value is null
     * @throws IllegalStateException if the editor is done
     */
    @SuppressWarnings("unchecked")
    public @Nullable V put(String key, V value) {
      if (done) {
        throw new IllegalStateException("this map editor is done: its map may not change any more");
      }
      checkValue(key, value);
      int h = hash(key);
      int c = h >>> shift;
      Object[] chunk = chunks[c];
      int n = counts[c];
      boolean shared = n < 0;
      if (shared) {
        n = count(chunk);
      }
      // Kept at most half full: room for one more, or rehashed into twice the slots first.
      if (4 * (n + 1) > chunk.length) {
        Object[] bigger = new Object[2 * slotsFor(n + 1)];
        putAll(bigger, chunk, null);
        chunk = bigger;
      } else if (shared) {
        chunk = chunk.clone();
      }
      chunks[c] = chunk;
      Object old = ChunkedHashMap.put(chunk, key, h, value);
      counts[c] = old == null ? n + 1 : n;
      if (old == null) {
        size++;
      }
      changed = true;
      return (V) old;
    }

    /** The map made: the one it started from when nothing was put. */
    public ChunkedHashMap<V> done() {
      done = true;
      return changed ? new ChunkedHashMap<>(chunks, size, bits) : from;
    }
  }

  /** This map without {@code key}; itself when the key has no value. */
  public ChunkedHashMap<V> without(String key) {
    if (get(key) == null) {
      return this;
    }
    int c = hash(key) >>> chunkShift;
    Object[] old = chunks[c];
    // Linear probing cannot simply empty a slot: the others are put again into a fresh chunk.
    Object[] rest = new Object[2 * slotsFor(count(old) - 1)];
    putAll(rest, old, key);
    Object[][] copy = chunks.clone();
    copy[c] = rest;
    return new ChunkedHashMap<>(copy, size - 1, chunkBits());
  }

  /** Calls {@code action} with every key and its value, in no particular order. */
  @SuppressWarnings("unchecked")
  public void forEach(BiConsumer<String, V> action) {
    for (Object[] chunk : chunks) {
      for (int i = 0; i < chunk.length; i += 2) {
        if (chunk[i] != null) {
          action.accept((String) chunk[i], (V) chunk[i + 1]);
        }
      }
    }
  }

  private int chunkBits() {
    return 32 - chunkShift;
  }

  /** The same entries in {@code 2^bits} chunks, each with room for {@code extra} more keys. */
  private ChunkedHashMap<V> rebuilt(int bits, int extra) {
    int n = 1 << bits;
    int shift = 32 - bits;
    int[] counts = new int[n];
    forEach((k, v) -> counts[hash(k) >>> shift]++);
    Object[][] rebuilt = new Object[n][];
    for (int i = 0; i < n; i++) {
      rebuilt[i] = new Object[2 * slotsFor(counts[i] + extra)];
    }
    forEach((k, v) -> {
      int h = hash(k);
      put(rebuilt[h >>> shift], k, h, v);
    });
    return new ChunkedHashMap<>(rebuilt, size, bits);
  }

  private static void checkValue(String key, Object value) {
    if (value == null) {
      throw new NullPointerException("value for key [" + key + "]");
    }
  }

  /**
   * Where {@code key} sits in every map of this kind: keys whose positions share their high bits
   * share a chunk, whatever the map's size. A batch of many keys split into parts by ranges of
   * position makes each part touch only its own chunks, so an {@link Editor} per part copies a
   * fraction of the map instead of nearly all of it. Compare positions unsigned.
   */
  public static int position(String key) {
    return hash(key);
  }

  /** Spreads the string's hash so that both its high bits (the chunk) and low bits (the slot) vary. */
  private static int hash(String key) {
    return key.hashCode() * 0x9E3779B9;
  }

  /** A power of two at least twice {@code entries}: a chunk is never more than half full. */
  private static int slotsFor(int entries) {
    return Math.max(MIN_SLOTS, Integer.highestOneBit(Math.max(1, entries * 2 - 1)) << 1);
  }

  private static int count(Object[] chunk) {
    int n = 0;
    for (int i = 0; i < chunk.length; i += 2) {
      if (chunk[i] != null) {
        n++;
      }
    }
    return n;
  }

  /** A copy of {@code chunk} with room for {@code more} keys: the same slots when they suffice, else rehashed. */
  private static Object[] withRoom(Object[] chunk, int more) {
    int slots = slotsFor(count(chunk) + more);
    if (slots <= chunk.length / 2) {
      return chunk.clone();
    }
    Object[] bigger = new Object[2 * slots];
    putAll(bigger, chunk, null);
    return bigger;
  }

  private static void putAll(Object[] into, Object[] from, String except) {
    for (int i = 0; i < from.length; i += 2) {
      if (from[i] != null && !from[i].equals(except)) {
        put(into, (String) from[i], hash((String) from[i]), from[i + 1]);
      }
    }
  }

  /**
   * Puts in place: only into a chunk no map holds yet, with room for one more key.
   *
   * @return the key's value before, or null when the key is new to the chunk
   */
  private static @Nullable Object put(@Nullable Object[] chunk, String key, int h, Object value) {
    int mask = chunk.length - 2;
    int i = (h << 1) & mask;
    while (chunk[i] != null && !chunk[i].equals(key)) {
      i = (i + 2) & mask;
    }
    Object old = chunk[i + 1];
    chunk[i] = key;
    chunk[i + 1] = value;
    return old;
  }
}
