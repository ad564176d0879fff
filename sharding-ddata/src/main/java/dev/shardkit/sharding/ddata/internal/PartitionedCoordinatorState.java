package dev.shardkit.sharding.ddata.internal;

import dev.shardkit.sharding.internal.wire.BinaryReader;
import dev.shardkit.sharding.internal.wire.BinaryWriter;
import dev.shardkit.sharding.internal.util.ShardIds;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A {@link CoordinatorState} as the parts it is stored in ({@link CoordinatorStateHead}): the
 * directory (part 0: each region with a small id, in registration order, and the proxies) and
 * {@code n} shard parts (part {@code 1 + floorMod(mix(shardId.hashCode()), n)}; {@link String#hashCode}
 * is specified by the Java language, so every node and version agrees, and the mix, a fixed
 * avalanche function, spreads ids that differ only in their last characters evenly over the
 * parts). Each shard is stored with
 * its region's id and a <em>stamp</em>, a number that grows with every allocation, so that each
 * region's shards come back in allocation order though they are spread over parts.
 *
 * <p>{@link #after} gives the parts a batch of events touches, so a write costs the size of those
 * parts, not of the state. The number of shard parts is chosen from the state's size: a take-over
 * starts from the fewest that keep every part's payload at most {@link #PART_LIMIT} bytes, and a
 * write that makes a part larger doubles the number (and so rewrites every part). At 100 000 shards
 * with 30-character ids that is 128 parts of about 30 KiB.
 *
 * <p>Immutable and pure; not thread-safe to build, safe to share.
 */
public final class PartitionedCoordinatorState {
  /**
   * The most bytes a part's payload may take before the parts are doubled. A part record carries
   * two payloads (now and as last confirmed), so a record stays below 100 KiB, far below Artery's
   * 256 KiB frame, whatever the number of shards. The directory is not split: its size grows with
   * the regions and proxies only (about 80 bytes each).
   */
  public static final int PART_LIMIT = 48 * 1024;
  /** The first byte of every payload: the payload format this version writes and reads. */
  static final byte PAYLOAD_FORMAT = 1;

  /** A shard's place in its part: its region's id and its allocation stamp. */
  private record Placed(int regionId, long stamp) {}

  private final CoordinatorState state;
  private final Map<ActorRef<Object>, Integer> regionIds;
  private final int nextRegionId;
  private final long nextStamp;
  /** Per shard part (index 0 here is part 1): each of its shards and where it is placed. */
  private final List<Map<String, Placed>> parts;

  private PartitionedCoordinatorState(CoordinatorState state, Map<ActorRef<Object>, Integer> regionIds,
      int nextRegionId, long nextStamp, List<Map<String, Placed>> parts) {
    this.state = state;
    this.regionIds = regionIds;
    this.nextRegionId = nextRegionId;
    this.nextStamp = nextStamp;
    this.parts = parts;
  }

  /**
   * The state in {@code shardParts} shard parts, regions numbered in registration order and
   * shards stamped in each region's allocation order.
   *
   * @throws IllegalArgumentException if shardParts is less than 1
   */
  public static PartitionedCoordinatorState of(CoordinatorState state, int shardParts) {
    if (shardParts < 1) {
      throw new IllegalArgumentException("A coordinator state needs at least 1 shard part, got " + shardParts);
    }
    Map<ActorRef<Object>, Integer> ids = new HashMap<>();
    List<Map<String, Placed>> parts = new ArrayList<>(shardParts);
    for (int i = 0; i < shardParts; i++) {
      parts.add(new HashMap<>());
    }
    long stamp = 0;
    for (Map.Entry<ActorRef<Object>, List<String>> region : state.regions().entrySet()) {
      int id = ids.size();
      ids.put(region.getKey(), id);
      for (String shard : region.getValue()) {
        parts.get(partOf(shard, shardParts) - 1).put(shard, new Placed(id, stamp++));
      }
    }
    return new PartitionedCoordinatorState(state, Collections.unmodifiableMap(ids), ids.size(), stamp,
        frozen(parts));
  }

  /**
   * The state in as many shard parts as keep each payload within {@link #PART_LIMIT}, judged by
   * the encoded size (a power of two, so that doubling later splits each part in two).
   */
  public static PartitionedCoordinatorState sized(CoordinatorState state, Function<ActorRef<Object>, String> refs) {
    return of(state, 1).resized(refs);
  }

  /**
   * This state in as many shard parts as keep each payload within {@link #PART_LIMIT}: the
   * number its size suggests (half the limit per part on average, so that parts have room to
   * grow), doubled until every part fits. Never fewer parts than now.
   */
  public PartitionedCoordinatorState resized(Function<ActorRef<Object>, String> refs) {
    long bytes = 0;
    for (String shard : state.shards().keySet()) {
      bytes += shard.length() + 8;
    }
    int n = parts.size();
    while (n < (1 << 20) && bytes / n > PART_LIMIT / 2) {
      n *= 2;
    }
    PartitionedCoordinatorState partitioned = n == parts.size() ? this : withShardParts(n);
    while (!partitioned.fits(refs)) {
      partitioned = partitioned.doubled();
    }
    return partitioned;
  }

  /** The shard part (1..n) that holds {@code shardId} when there are {@code shardParts} of them. */
  public static int partOf(String shardId, int shardParts) {
    return 1 + Math.floorMod(mix(shardId.hashCode()), shardParts);
  }

  /** The 32-bit finalizer of MurmurHash3: every input bit affects every output bit. */
  private static int mix(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
  }

  public CoordinatorState state() {
    return state;
  }

  /** The number of shard parts (the directory not counted). */
  public int shardParts() {
    return parts.size();
  }

  /** The number of shards in shard part {@code index} (1..n). */
  public int shardsIn(int index) {
    return parts.get(index - 1).size();
  }

  /** This state after a batch of events, and the parts the batch touched. */
  public record Change(PartitionedCoordinatorState after, Set<Integer> touched) {}

  /**
   * This state after {@code events}, which the coordinator applied to {@link #state} to get
   * {@code stateAfter}. The touched parts are the directory if a region or proxy came or went,
   * the part of every shard allocated or deallocated, and those of a terminated region's shards.
   *
   * @throws IllegalArgumentException if a shard allocated in the batch has no home in stateAfter
   *     (the events do not lead to it)
   */
  public Change after(List<CoordinatorEvent> events, CoordinatorState stateAfter) {
    Set<Integer> touched = new TreeSet<>();
    Map<ActorRef<Object>, Integer> ids = regionIds;
    int nextId = nextRegionId;
    long stamp = nextStamp;
    Map<String, Long> allocated = new HashMap<>();
    int n = parts.size();
    for (CoordinatorEvent event : events) {
      if (event instanceof RegionRegistered e) {
        touched.add(0);
        if (!ids.containsKey(e.region())) {
          ids = new HashMap<>(ids);
          ids.put(e.region(), nextId++);
          ids = Collections.unmodifiableMap(ids);
        }
      } else if (event instanceof RegionTerminated e) {
        touched.add(0);
        for (String shard : state.regions().getOrDefault(e.region(), List.of())) {
          touched.add(partOf(shard, n));
        }
      } else if (event instanceof ProxyRegistered || event instanceof ProxyTerminated) {
        touched.add(0);
      } else if (event instanceof ShardHomeAllocated e) {
        touched.add(partOf(e.shardId(), n));
        allocated.put(e.shardId(), stamp++);
      } else if (event instanceof ShardHomeDeallocated e) {
        touched.add(partOf(e.shardId(), n));
      }
    }
    if (touched.contains(0) && ids.size() != stateAfter.regions().size()) {
      // Drop the ids of regions that are gone; ids are never reused within this instance's life.
      Map<ActorRef<Object>, Integer> kept = new HashMap<>();
      for (ActorRef<Object> region : stateAfter.regions().keySet()) {
        Integer id = ids.get(region);
        kept.put(region, id != null ? id : nextId++);
      }
      ids = Collections.unmodifiableMap(kept);
    }
    Map<ActorRef<Object>, Integer> finalIds = ids;
    List<Map<String, Placed>> nextParts = new ArrayList<>(parts);
    // One copy per touched part, so a batch costs the size of the parts it touches.
    for (int index : touched) {
      if (index == 0) {
        continue;
      }
      Map<String, Placed> part = new HashMap<>();
      parts.get(index - 1).forEach((shard, placed) -> {
        ActorRef<Object> home = stateAfter.shards().get(shard);
        if (home != null && !allocated.containsKey(shard)) {
          part.put(shard, new Placed(regionId(finalIds, home, shard), placed.stamp()));
        }
      });
      nextParts.set(index - 1, part);
    }
    for (Map.Entry<String, Long> a : allocated.entrySet()) {
      ActorRef<Object> home = stateAfter.shards().get(a.getKey());
      if (home != null) {
        nextParts.get(partOf(a.getKey(), n) - 1).put(a.getKey(), new Placed(regionId(ids, home, a.getKey()),
            a.getValue()));
      }
    }
    for (int index : touched) {
      if (index > 0) {
        nextParts.set(index - 1, Collections.unmodifiableMap(nextParts.get(index - 1)));
      }
    }
    return new Change(new PartitionedCoordinatorState(stateAfter, ids, nextId, stamp,
        Collections.unmodifiableList(nextParts)), Collections.unmodifiableSet(touched));
  }

  private static int regionId(Map<ActorRef<Object>, Integer> ids, ActorRef<Object> home, String shard) {
    Integer id = ids.get(home);
    if (id == null) {
      throw new IllegalArgumentException("Shard [" + shard + "] has its home in region " + home + ", which the "
          + "coordinator state's regions do not list");
    }
    return id;
  }

  /** The same state in twice as many shard parts, each old part split in two. */
  public PartitionedCoordinatorState doubled() {
    return withShardParts(parts.size() * 2);
  }

  /**
   * The same state in {@code n} shard parts.
   *
   * @throws IllegalArgumentException if n is less than 1
   */
  public PartitionedCoordinatorState withShardParts(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("A coordinator state needs at least 1 shard part, got " + n);
    }
    List<Map<String, Placed>> next = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      next.add(new HashMap<>());
    }
    for (Map<String, Placed> part : parts) {
      part.forEach((shard, placed) -> next.get(partOf(shard, n) - 1).put(shard, placed));
    }
    return new PartitionedCoordinatorState(state, regionIds, nextRegionId, nextStamp, frozen(next));
  }

  /** Whether every shard part's payload is within {@link #PART_LIMIT}. */
  public boolean fits(Function<ActorRef<Object>, String> refs) {
    for (int i = 1; i <= parts.size(); i++) {
      if (payload(i, refs).length > PART_LIMIT) {
        return false;
      }
    }
    return true;
  }

  private static List<Map<String, Placed>> frozen(List<Map<String, Placed>> parts) {
    List<Map<String, Placed>> result = new ArrayList<>(parts.size());
    parts.forEach(p -> result.add(Collections.unmodifiableMap(p)));
    return Collections.unmodifiableList(result);
  }

  // ---- payloads

  /**
   * Part {@code index} encoded. The directory: byte 1, uvarint r, r &times; &sect;(uvarint id, ref
   * region) in registration order, uvarint p, p &times; &sect;(ref proxy) sorted. A shard part:
   * byte 1, uvarint s, s &times; &sect;(str shardId, uvarint regionId, uvarlong stamp) by stamp.
   * Primitives and sections as in {@link DDataSerializer}; readers skip what follows the known
   * fields of a section, so fields may be appended.
   *
   * @param refs a ref's serialization format
   * @throws IllegalArgumentException if the index is not a part, or a shard id is invalid
   */
  public byte[] payload(int index, Function<ActorRef<Object>, String> refs) {
    if (index < 0 || index > parts.size()) {
      throw new IllegalArgumentException("Part " + index + " does not exist; there are " + parts.size()
          + " shard part(s) after the directory (0)");
    }
    if (index == 0) {
      BinaryWriter w = new BinaryWriter(64 + 96 * (regionIds.size() + state.proxies().size()));
      w.writeByte(PAYLOAD_FORMAT);
      w.writeVarUInt(state.regions().size());
      for (ActorRef<Object> region : state.regions().keySet()) {
        w.writeSection(s -> {
          s.writeVarUInt(regionIds.get(region));
          s.writeString(refs.apply(region));
        });
      }
      List<String> proxies = new ArrayList<>();
      state.proxies().forEach(p -> proxies.add(refs.apply(p)));
      proxies.sort(null);
      w.writeVarUInt(proxies.size());
      proxies.forEach(p -> w.writeSection(s -> s.writeString(p)));
      return w.toByteArray();
    }
    List<Map.Entry<String, Placed>> shards = new ArrayList<>(parts.get(index - 1).entrySet());
    shards.sort(Comparator.comparingLong(e -> e.getValue().stamp()));
    BinaryWriter w = new BinaryWriter(16 + 48 * shards.size());
    w.writeByte(PAYLOAD_FORMAT);
    w.writeVarUInt(shards.size());
    for (Map.Entry<String, Placed> e : shards) {
      w.writeSection(s -> {
        s.writeString(ShardIds.require("shard id", e.getKey(), "the ddata coordinator state part"));
        s.writeVarUInt(e.getValue().regionId());
        s.writeVarULong(e.getValue().stamp());
      });
    }
    return w.toByteArray();
  }

  /**
   * The state that a directory and its shard parts describe, rebuilt through
   * {@link CoordinatorState#applied} (regions, proxies, then each region's shards by stamp), so
   * that parts that break the state's rules are refused like such events would be.
   *
   * @param refs resolves a ref's serialization format
   * @throws IllegalArgumentException if a payload is truncated, of an unknown format, or names a
   *     region id the directory does not list, or a shard in the wrong part
   * @throws IllegalStateException if the parts break the state's rules (a shard listed twice)
   */
  public static CoordinatorState decode(byte[] directory, List<byte[]> shardParts,
      Function<String, ActorRef<Object>> refs) {
    BinaryReader d = reader(directory, "the directory");
    int regionCount = d.readVarUInt();
    Map<Integer, ActorRef<Object>> regions = new HashMap<>();
    List<ActorRef<Object>> order = new ArrayList<>();
    CoordinatorState state = CoordinatorState.empty();
    for (int i = 0; i < regionCount; i++) {
      ActorRef<Object> region = d.readSection(s -> {
        int id = s.readVarUInt();
        ActorRef<Object> ref = refs.apply(s.requiredString("region"));
        if (regions.put(id, ref) != null) {
          throw new IllegalArgumentException("the directory lists region id " + id + " twice");
        }
        return ref;
      });
      order.add(region);
      state = state.applied(new RegionRegistered(region));
    }
    int proxyCount = d.readVarUInt();
    for (int i = 0; i < proxyCount; i++) {
      state = state.applied(new ProxyRegistered(d.readSection(s -> refs.apply(s.requiredString("proxy")))));
    }
    record Stamped(String shard, long stamp) {}
    Map<ActorRef<Object>, List<Stamped>> byRegion = new HashMap<>();
    for (int index = 1; index <= shardParts.size(); index++) {
      BinaryReader p = reader(shardParts.get(index - 1), "shard part " + index);
      int count = p.readVarUInt();
      for (int i = 0; i < count; i++) {
        int part = index;
        p.readSection(s -> {
          String shard = s.readString();
          int id = s.readVarUInt();
          long stamp = s.readVarULong();
          ActorRef<Object> region = regions.get(id);
          if (region == null) {
            throw new IllegalArgumentException("shard part " + part + " places shard [" + shard + "] in region id "
                + id + ", which the directory does not list");
          }
          if (partOf(ShardIds.require("shard id", shard, "the ddata coordinator state part"),
              shardParts.size()) != part) {
            throw new IllegalArgumentException("shard [" + shard + "] is in shard part " + part + " of "
                + shardParts.size() + ", not its own");
          }
          byRegion.computeIfAbsent(region, r -> new ArrayList<>()).add(new Stamped(shard, stamp));
          return null;
        });
      }
    }
    for (ActorRef<Object> region : order) {
      List<Stamped> shards = byRegion.getOrDefault(region, new ArrayList<>());
      shards.sort(Comparator.comparingLong(Stamped::stamp));
      for (Stamped s : shards) {
        state = state.applied(new ShardHomeAllocated(s.shard(), region));
      }
    }
    return state;
  }

  private static BinaryReader reader(byte[] payload, String what) {
    if (payload.length == 0 || payload[0] != PAYLOAD_FORMAT) {
      throw new IllegalArgumentException(what + " is " + (payload.length == 0 ? "empty" : "in payload format "
          + payload[0] + ", this version reads " + PAYLOAD_FORMAT));
    }
    BinaryReader r = new BinaryReader(payload);
    r.readByte();
    return r;
  }
}
