package dev.shardkit.sharding.internal.wire;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.util.ChunkedHashMap;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHomes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Splits many shard homes into {@link ShardHomes} messages that each fit one remote frame: Pekko's
 * remoting refuses a message larger than its {@code maximum-frame-size} (256 KiB by default), and
 * 100 000 homes take well over that. The size of a message is bounded from above the way
 * {@link ShardingSerializer} writes it: each shard id at most 3 bytes per char plus its length,
 * and each distinct region's ref once, at most 3 bytes per char of its path plus a margin for its
 * uid.
 *
 * <p>The homes go out in the order of their place in a region's routing table (their
 * {@link ChunkedHashMap#position}), so that each message fills its own part of every receiving
 * region's table: a region copies the parts of its table a message changes, and a message of homes
 * in no particular order changes nearly every part. Pure.
 */
@InternalApi
public final class ShardHomesChunks {

  /**
   * The budget of one message: half of Pekko's default frame, which leaves room for the envelope
   * around it and for a frame size configured somewhat below the default.
   */
  public static final int DEFAULT_MAX_BYTES = 128 * 1024;

  private ShardHomesChunks() {}

  /**
   * The homes in as few messages as the budget allows, each at {@code term}; none for no homes.
   * Every home is in exactly one message.
   *
   * @param maxBytes the most one message may take
   * @throws IllegalArgumentException if {@code maxBytes} cannot hold even one home (a shard id or
   *     a region path longer than the budget allows), naming it
   */
  public static List<ShardHomes> of(Map<String, ActorRef<Object>> homes, long term, int maxBytes) {
    List<ShardHomes> chunks = new ArrayList<>();
    Map<String, ActorRef<Object>> chunk = new HashMap<>();
    Set<ActorRef<Object>> regionsInChunk = new HashSet<>();
    long size = HEADER;
    for (Map.Entry<String, ActorRef<Object>> home : inTableOrder(homes)) {
      long cost = idBytes(home.getKey()) + (regionsInChunk.contains(home.getValue()) ? 0 : regionBytes(home.getValue()));
      if (HEADER + idBytes(home.getKey()) + regionBytes(home.getValue()) > maxBytes) {
        throw new IllegalArgumentException("the home of shard [" + home.getKey() + "] in " + home.getValue().path()
            + " alone takes more than " + maxBytes + " bytes");
      }
      if (size + cost > maxBytes) {
        chunks.add(new ShardHomes(chunk, term));
        chunk = new HashMap<>();
        regionsInChunk.clear();
        size = HEADER;
        cost = idBytes(home.getKey()) + regionBytes(home.getValue());
      }
      chunk.put(home.getKey(), home.getValue());
      regionsInChunk.add(home.getValue());
      size += cost;
    }
    if (!chunk.isEmpty()) {
      chunks.add(new ShardHomes(chunk, term));
    }
    return chunks;
  }

  /** Table positions are grouped by their top bits into this many runs, in order. */
  private static final int POSITION_BITS = 8;

  /** The homes in runs of the same top bits of their table position, the runs in order. */
  private static List<Map.Entry<String, ActorRef<Object>>> inTableOrder(Map<String, ActorRef<Object>> homes) {
    List<List<Map.Entry<String, ActorRef<Object>>>> runs = new ArrayList<>(1 << POSITION_BITS);
    for (int r = 0; r < 1 << POSITION_BITS; r++) {
      runs.add(new ArrayList<>());
    }
    for (Map.Entry<String, ActorRef<Object>> home : homes.entrySet()) {
      runs.get(ChunkedHashMap.position(home.getKey()) >>> (32 - POSITION_BITS)).add(home);
    }
    List<Map.Entry<String, ActorRef<Object>>> ordered = new ArrayList<>(homes.size());
    runs.forEach(ordered::addAll);
    return ordered;
  }

  /** The term and the count of regions. */
  private static final int HEADER = 16;

  /** Its length (up to 5 bytes) and at most 3 bytes per char. */
  private static long idBytes(String shardId) {
    return 5 + 3L * shardId.length();
  }

  /** The section's length and the count of its shards, the path at 3 bytes per char, and its uid. */
  private static long regionBytes(ActorRef<Object> region) {
    return 10 + 3L * region.path().toString().length() + 24;
  }
}
