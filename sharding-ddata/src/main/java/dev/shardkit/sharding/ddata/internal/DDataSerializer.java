package dev.shardkit.sharding.ddata.internal;

import dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord.Version;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.internal.wire.BinaryReader;
import dev.shardkit.sharding.internal.wire.BinaryWriter;
import dev.shardkit.sharding.internal.util.ShardIds;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.UTFDataFormatException;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.shardkit.sharding.internal.wire.ShardkitSerializer;

/**
 * Pekko serializer for the data this module replicates: the split coordinator state's
 * {@link CoordinatorStateHead} (manifest {@code H}) and {@link CoordinatorStatePart} (manifest
 * {@code P}), and the single {@link CoordinatorStateRecord} (manifest {@code C}) that versions
 * before the split wrote, which a coordinator still reads to migrate it. Bound to them in this
 * module's {@code reference.conf}; its identifier is 7242 unless
 * {@code pekko.actor.serialization-identifiers} says otherwise.
 *
 * <h2>Formats of manifests {@code H} and {@code P}</h2>
 *
 * The first byte is the format, 1; any other is refused with a {@link NotSerializableException}
 * naming it. A head: byte 1, version and basis (as below), &sect;(part versions), uvarint 0 or 1
 * and then &sect;(fallback part versions); part versions are uvarlong term, str writer, uvarint n,
 * n &times; uvarlong seq (the directory's first). A part: byte 1, version, bytes payload, uvarint 0
 * or 1 and then the previous version and bytes payload; bytes are a uvarint length and the bytes.
 * The payloads are {@link PartitionedCoordinatorState}'s, with a format byte of their own. Golden
 * files ({@code src/test/resources/golden/ddata-coordinator-state-split}) guard both. A reader
 * ignores what follows the fields it knows at the end of a section and of the record.
 *
 * <h2>Format of manifest {@code C} (the single coordinator state record)</h2>
 *
 * The first byte is the <b>format version</b>. This version writes format 2 and reads formats 1
 * and 2; a record of a newer format is refused with a {@link NotSerializableException} that names
 * it. Golden files of both ({@code src/test/resources/golden/ddata-coordinator-state}) guard that.
 *
 * <table>
 *   <caption>Format 2, in order</caption>
 *   <tr><th>field</th><th>encoding</th></tr>
 *   <tr><td>format</td><td>byte 2</td></tr>
 *   <tr><td>version</td><td>uvarlong term, uvarlong seq, str writer</td></tr>
 *   <tr><td>basis</td><td>uvarlong term, uvarlong seq, str writer</td></tr>
 *   <tr><td>regions, in registration order</td><td>uvarint n, n &times; &sect;(ref region, uvarint m,
 *       m &times; &sect;(str shardId), in allocation order)</td></tr>
 *   <tr><td>proxies, sorted by ref</td><td>uvarint p, p &times; &sect;(ref proxy)</td></tr>
 * </table>
 *
 * <p>The primitives are those of shardkit's wire format ({@link BinaryWriter}): little-endian
 * base-128 varints; a <b>str</b> is a uvarint (UTF-8 byte length + 1, 0 for null) and the bytes,
 * unpaired surrogates kept; a <b>ref</b> is a str with the ref's
 * {@link ActorRefResolver#toSerializationFormat} form; <b>&sect;(&hellip;)</b> is a section, a
 * uvarint length and that many bytes. Proxies are sorted so that equal records give equal bytes
 * (the replicator compares digests of the bytes to decide what to gossip).
 *
 * <p><b>Extending format 2 without a new version.</b> A reader ignores what follows the fields
 * it knows at the end of a section (a region, a shard, a proxy) and at the end of the record, so
 * a later shardkit may append fields there (a region's zone, a shard's load, the record's term)
 * and nodes of this version, which replicate the same key during a rolling upgrade, still read
 * its records. A reader of a record from an older writer without the appended fields must take a
 * default. Any other change needs format 3, which a writer may only start writing once no node
 * that reads at most format 2 is left.
 *
 * <p><b>Format 1</b>, written by shardkit before format 2, is big-endian as
 * {@link DataOutputStream} writes: byte 1; version and basis each as long term, long seq, str
 * writer; int n regions, each as ref region, int m, m &times; str shardId; int p proxies, each as
 * ref. A str there is {@link DataOutputStream#writeUTF}'s modified UTF-8 (at most 65535 bytes).
 * Its elements have no lengths, so nothing could be added to them.
 *
 * <p>Unknown manifests, unknown formats and bytes that are truncated or do not describe a valid
 * {@link CoordinatorState} fail {@link #fromBinary} with a {@link NotSerializableException} that
 * says which; so does a region or proxy without its ref, naming the field. Shard ids follow
 * {@link ShardIds}: {@link #toBinary} refuses a state with an invalid one (an
 * {@link IllegalArgumentException} naming it), and {@link #fromBinary} leaves one that an older
 * shardkit wrote out of the record, with an error in the log, rather than make the record (and
 * with it every later coordinator's load) unreadable.
 */
public final class DDataSerializer extends ShardkitSerializer {
  private static final Logger LOG = LoggerFactory.getLogger(DDataSerializer.class);
  static final int DEFAULT_IDENTIFIER = 7242;
  static final String COORDINATOR_STATE = "C";
  static final String COORDINATOR_STATE_HEAD = "H";
  static final String COORDINATOR_STATE_PART = "P";
  /** The format of heads and parts; they were introduced with it. */
  static final int SPLIT_FORMAT = 1;
  /** The format this version writes; it reads this one and {@link #FORMAT_1}. */
  static final int FORMAT = 2;
  /** The format written before records carried sections. */
  static final int FORMAT_1 = 1;
  /** The least bytes a format 1 str takes (its length); bounds what a corrupt count can make us allocate. */
  private static final int MIN_STR = 2;
  /** Who refuses an invalid field, in errors. */
  private static final String WHO = "the ddata coordinator state record";


  /** Called by Pekko, which creates one instance per actor system from the configuration. */
  public DDataSerializer(ExtendedActorSystem system) {
    super(system, DEFAULT_IDENTIFIER);
  }

  @Override
  public String manifest(Object o) {
    if (o instanceof CoordinatorStateRecord) {
      return COORDINATOR_STATE;
    } else if (o instanceof CoordinatorStateHead) {
      return COORDINATOR_STATE_HEAD;
    } else if (o instanceof CoordinatorStatePart) {
      return COORDINATOR_STATE_PART;
    }
    throw cannotHandle(o);
  }

  @Override
  public byte[] toBinary(Object o) {
    if (o instanceof CoordinatorStateHead head) {
      return headToBinary(head);
    } else if (o instanceof CoordinatorStatePart part) {
      return partToBinary(part);
    }
    if (!(o instanceof CoordinatorStateRecord record)) {
      throw cannotHandle(o);
    }
    CoordinatorState state = record.state();
    BinaryWriter w = new BinaryWriter(64 + 48 * state.regions().size() + 12 * state.shards().size());
    w.writeByte((byte) FORMAT);
    writeVersion(w, record.version());
    writeVersion(w, record.basis());
    w.writeVarUInt(state.regions().size());
    state.regions().forEach((region, shards) -> w.writeSection(r -> {
      r.writeString(ref(region, "region"));
      r.writeVarUInt(shards.size());
      for (String shard : shards) {
        r.writeSection(s -> s.writeString(ShardIds.require("shard id", shard, WHO)));
      }
    }));
    List<String> proxies = new ArrayList<>();
    state.proxies().forEach(p -> proxies.add(ref(p, "proxy")));
    proxies.sort(null);
    w.writeVarUInt(proxies.size());
    for (String proxy : proxies) {
      w.writeSection(p -> p.writeString(proxy));
    }
    return w.toByteArray();
  }

  private static byte[] headToBinary(CoordinatorStateHead head) {
    BinaryWriter w = new BinaryWriter(128 + 4 * head.parts().shardParts());
    w.writeByte((byte) SPLIT_FORMAT);
    writeVersion(w, head.version());
    writeVersion(w, head.basis());
    w.writeSection(p -> writePartVersions(p, head.parts()));
    w.writeVarUInt(head.fallback().isPresent() ? 1 : 0);
    head.fallback().ifPresent(f -> w.writeSection(p -> writePartVersions(p, f)));
    return w.toByteArray();
  }

  private static void writePartVersions(BinaryWriter w, PartVersions parts) {
    w.writeVarULong(parts.term());
    w.writeString(parts.writer());
    long[] seqs = parts.seqs();
    w.writeVarUInt(seqs.length);
    for (long seq : seqs) {
      w.writeVarULong(seq);
    }
  }

  private static byte[] partToBinary(CoordinatorStatePart part) {
    BinaryWriter w = new BinaryWriter(64 + part.payload().length
        + part.previousPayload().map(p -> p.length).orElse(0));
    w.writeByte((byte) SPLIT_FORMAT);
    writeVersion(w, part.version());
    w.writeBytes(part.payload());
    w.writeVarUInt(part.previousVersion().isPresent() ? 1 : 0);
    part.previousVersion().ifPresent(v -> {
      writeVersion(w, v);
      w.writeBytes(part.previousPayload().get());
    });
    return w.toByteArray();
  }

  /** @throws IllegalArgumentException naming the field if the ref is missing */
  private String ref(ActorRef<?> ref, String field) {
    if (ref == null) {
      throw new IllegalArgumentException(WHO + " refuses a state whose required field [" + field + "] is null");
    }
    return resolver().toSerializationFormat(ref);
  }

  private static void writeVersion(BinaryWriter w, Version v) {
    w.writeVarULong(v.term());
    w.writeVarULong(v.seq());
    w.writeString(v.writer());
  }

  @Override
  public Object fromBinary(byte[] bytes, String manifest) throws NotSerializableException {
    if (COORDINATOR_STATE_HEAD.equals(manifest) || COORDINATOR_STATE_PART.equals(manifest)) {
      return splitFromBinary(bytes, manifest);
    }
    if (!COORDINATOR_STATE.equals(manifest)) {
      throw new NotSerializableException("shardkit's DDataSerializer (id " + identifier() + ") does not know the "
          + "manifest [" + manifest + "] (" + bytes.length + " bytes); was it written by a newer shardkit version?");
    }
    int format = bytes.length == 0 ? -1 : bytes[0] & 0xFF;
    try {
      if (format == FORMAT) {
        return readFormat2(bytes);
      } else if (format == FORMAT_1) {
        return readFormat1(bytes);
      } else if (format > FORMAT) {
        throw new NotSerializableException("shardkit cannot read a coordinator state record in format " + format
            + ": this shardkit reads formats up to " + FORMAT + ". It was written by a newer shardkit, which must keep "
            + "writing format " + FORMAT + " until no node of this version is left in the cluster");
      } else if (format >= 0) {
        throw new NotSerializableException("shardkit cannot read a coordinator state record in format " + format
            + " (this version reads formats " + FORMAT_1 + " and " + FORMAT + ")");
      }
      throw corrupt(bytes, "it is empty", null);
    } catch (EOFException e) {
      throw corrupt(bytes, "it ends before the last field", e);
    } catch (UTFDataFormatException e) {
      throw corrupt(bytes, "a string is not valid modified UTF-8 (" + e.getMessage() + ")", e);
    } catch (NotSerializableException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      // IllegalArgumentException: truncated, or a count larger than the bytes left.
      // IllegalStateException: the state breaks an invariant, e.g. a shard listed under two regions.
      throw corrupt(bytes, e.getMessage(), e);
    }
  }

  private static Object splitFromBinary(byte[] bytes, String manifest) throws NotSerializableException {
    String what = COORDINATOR_STATE_HEAD.equals(manifest) ? "coordinator state head" : "coordinator state part";
    int format = bytes.length == 0 ? -1 : bytes[0] & 0xFF;
    if (format != SPLIT_FORMAT) {
      throw new NotSerializableException("shardkit cannot read a " + what + " (manifest [" + manifest + "]) "
          + (format < 0 ? "of 0 bytes" : "in format " + format + ": this shardkit reads format " + SPLIT_FORMAT
          + (format > SPLIT_FORMAT ? "; it was written by a newer shardkit, which must keep writing format "
          + SPLIT_FORMAT + " until no node of this version is left in the cluster" : "")));
    }
    try {
      BinaryReader r = new BinaryReader(bytes);
      r.readByte();
      Version version = readVersion(r);
      if (COORDINATOR_STATE_HEAD.equals(manifest)) {
        Version basis = readVersion(r);
        PartVersions parts = r.readSection(DDataSerializer::readPartVersions);
        PartVersions fallback = r.readVarUInt() == 0 ? null : r.readSection(DDataSerializer::readPartVersions);
        return new CoordinatorStateHead(version, basis, parts, fallback);
      }
      byte[] payload = r.readBytes();
      if (r.readVarUInt() == 0) {
        return new CoordinatorStatePart(version, payload, null, null);
      }
      Version previous = readVersion(r);
      return new CoordinatorStatePart(version, payload, previous, r.readBytes());
    } catch (RuntimeException e) {
      NotSerializableException failure = new NotSerializableException("shardkit cannot read a " + what
          + " (manifest [" + manifest + "]) of " + bytes.length + " bytes, truncated or corrupt: " + e.getMessage());
      failure.initCause(e);
      throw failure;
    }
  }

  private static PartVersions readPartVersions(BinaryReader r) {
    long term = r.readVarULong();
    String writer = r.readString();
    int n = r.readVarUInt();
    if (n > r.remaining()) {
      throw new IllegalArgumentException("a count of " + n + " part versions with only " + r.remaining()
          + " bytes left");
    }
    long[] seqs = new long[n];
    for (int i = 0; i < n; i++) {
      seqs[i] = r.readVarULong();
    }
    return new PartVersions(term, writer, seqs);
  }

  private CoordinatorStateRecord readFormat2(byte[] bytes) {
    BinaryReader r = new BinaryReader(bytes);
    r.readByte();
    Version version = readVersion(r);
    Version basis = readVersion(r);
    int regionCount = r.readVarUInt();
    List<StoredRegion> regions = new ArrayList<>(Math.min(regionCount, r.remaining()));
    for (int i = 0; i < regionCount; i++) {
      regions.add(r.readSection(region -> {
        ActorRef<Object> ref = resolver().resolveActorRef(region.requiredString("region"));
        int shardCount = region.readVarUInt();
        List<String> shards = new ArrayList<>(Math.min(shardCount, region.remaining()));
        for (int j = 0; j < shardCount; j++) {
          keepValid(shards, region.readSection(BinaryReader::readString), ref);
        }
        return new StoredRegion(ref, shards);
      }));
    }
    int proxyCount = r.readVarUInt();
    List<ActorRef<Object>> proxies = new ArrayList<>(Math.min(proxyCount, r.remaining()));
    for (int i = 0; i < proxyCount; i++) {
      proxies.add(r.readSection(proxy -> resolver().resolveActorRef(proxy.requiredString("proxy"))));
    }
    return new CoordinatorStateRecord(version, basis, rebuild(regions, proxies));
  }

  private static Version readVersion(BinaryReader r) {
    long term = r.readVarULong();
    long seq = r.readVarULong();
    return new Version(term, seq, r.readString());
  }

  private CoordinatorStateRecord readFormat1(byte[] bytes) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    in.readUnsignedByte();
    Version version = readVersion(in);
    Version basis = readVersion(in);
    int regionCount = readCount(in, MIN_STR + 4, "regions");
    List<StoredRegion> regions = new ArrayList<>(regionCount);
    for (int i = 0; i < regionCount; i++) {
      ActorRef<Object> region = resolver().resolveActorRef(BinaryReader.required(in.readUTF(), "region"));
      int shardCount = readCount(in, MIN_STR, "shards");
      List<String> shards = new ArrayList<>(shardCount);
      for (int j = 0; j < shardCount; j++) {
        keepValid(shards, in.readUTF(), region);
      }
      regions.add(new StoredRegion(region, shards));
    }
    int proxyCount = readCount(in, MIN_STR, "proxies");
    List<ActorRef<Object>> proxies = new ArrayList<>(proxyCount);
    for (int i = 0; i < proxyCount; i++) {
      proxies.add(resolver().resolveActorRef(BinaryReader.required(in.readUTF(), "proxy")));
    }
    return new CoordinatorStateRecord(version, basis, rebuild(regions, proxies));
  }

  /**
   * Adds a shard read from a record unless its id is invalid ({@link ShardIds}). Such an id, which
   * only an older shardkit could have written (this one refuses to), is left out with an error
   * rather than making the whole record unreadable: that would make every later coordinator of
   * the type fail to load. The shard gets a home again when next used.
   */
  private static void keepValid(List<String> shards, String shardId, ActorRef<Object> region) {
    if (ShardIds.isValid(shardId)) {
      shards.add(shardId);
    } else {
      LOG.error("A replicated coordinator state record lists a shard of region {} whose {}; leaving it out, so that "
          + "the coordinator can load (the shard gets a home again when next used)", region,
          ShardIds.problem("shard id", shardId).orElse(""));
    }
  }

  /** A region as a record lists it: its ref and its shards in allocation order. */
  private record StoredRegion(ActorRef<Object> ref, List<String> shards) {}

  /**
   * The state a record describes, built through {@link CoordinatorState#applied} in the order of
   * {@link CoordinatorState#toEvents} (regions, proxies, then shard homes), so that a record that
   * breaks the state's rules is refused like such an event would be.
   */
  private static CoordinatorState rebuild(List<StoredRegion> regions, List<ActorRef<Object>> proxies) {
    CoordinatorState state = CoordinatorState.empty();
    for (StoredRegion region : regions) {
      state = state.applied(new RegionRegistered(region.ref()));
    }
    for (ActorRef<Object> proxy : proxies) {
      state = state.applied(new ProxyRegistered(proxy));
    }
    for (StoredRegion region : regions) {
      for (String shard : region.shards()) {
        state = state.applied(new ShardHomeAllocated(shard, region.ref()));
      }
    }
    return state;
  }

  private static Version readVersion(DataInputStream in) throws IOException {
    long term = in.readLong();
    long seq = in.readLong();
    String writer = in.readUTF();
    return new Version(term, seq, writer);
  }

  private static int readCount(DataInputStream in, int minBytesEach, String what) throws IOException {
    int n = in.readInt();
    int remaining = in.available();
    if (n < 0 || (long) n * minBytesEach > remaining) {
      throw new IOException("a count of " + n + " " + what + " with only " + remaining + " bytes left");
    }
    return n;
  }

  private static NotSerializableException corrupt(byte[] bytes, String why, Throwable cause) {
    NotSerializableException e = new NotSerializableException("shardkit cannot read a coordinator state record (manifest [" + COORDINATOR_STATE + "]) of "
        + bytes.length + " bytes, truncated or corrupt: " + why);
    e.initCause(cause);
    return e;
  }

  private IllegalArgumentException cannotHandle(Object o) {
    return new IllegalArgumentException("shardkit's DDataSerializer (id " + identifier() + ") cannot serialize "
        + (o == null ? "null" : "an object of class [" + o.getClass().getName() + "]"));
  }
}
