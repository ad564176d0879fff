package dev.shardkit.sharding.internal.wire;

import dev.shardkit.sharding.Passivate;
import dev.shardkit.sharding.ShardingEnvelope;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.util.ShardIds;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.CurrentRegions;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetCurrentRegions;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetRegionStats;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GracefulShutdownReq;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffDeclined;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffMarker;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegionStats;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterProxy;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHomes;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardRefused;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardStarted;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardStopped;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.UndeliverableItem;
import java.io.NotSerializableException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.WeakHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.serialization.DisabledJavaSerializer;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.Serializers;
import scala.util.Try;

/**
 * Pekko serializer for the messages shardkit sends between nodes: every {@link ShardingProtocol}
 * message, {@link ShardingEnvelope} and {@link Passivate}. Bound to them in shardkit's
 * {@code reference.conf}; its identifier is 7241 unless
 * {@code pekko.actor.serialization-identifiers} says otherwise.
 *
 * <h2>Format</h2>
 *
 * <p>The Pekko manifest names the message type and the <b>format version</b> of its bytes
 * ({@link WireManifest}): {@code D1} is a Deliver in format 1, the format this version writes. The
 * bytes are the message's fields in the order below, with no header or tags.
 *
 * <p><b>Versions.</b> Format 0 is what shardkit wrote before its formats carried versions: the
 * bare codes as manifests ({@code D}, {@code DB}, &hellip;), and collections whose elements are
 * written one after the other without a length. Format 1 writes every element of a collection as
 * a <b>section</b> (marked &sect; below), and is otherwise the same. A reader reads both, and
 * refuses a manifest of a newer format version with a {@link NotSerializableException} that names
 * it. Golden files of both ({@code src/test/resources/golden/sharding-serializer}) guard that.
 *
 * <p><b>Extending format 1 without a new version.</b> A reader ignores whatever follows the
 * fields it knows: at the end of a message, at the end of a section (a collection element or a
 * batch item), and a batch item of a tag it does not know. So a later shardkit may append fields
 * there, and older nodes in the same cluster (a rolling upgrade) read its messages; a reader
 * that meets a message from an older writer without the appended fields must take a default.
 * Anything else (removing, reordering or changing a field) needs a new format version, and a
 * writer must keep writing the old version while nodes that only read the old one are in the
 * cluster.
 *
 * <table>
 *   <caption>Manifests (code + version) and fields</caption>
 *   <tr><th>code</th><th>message</th><th>fields (format 1)</th></tr>
 *   <tr><td>{@code D}</td><td>Deliver</td><td>str typeName, str shardId, str entityId, payload message</td></tr>
 *   <tr><td>{@code R}</td><td>Register</td><td>ref region, uvarint n, n &times; &sect;(str hosted shardId)</td></tr>
 *   <tr><td>{@code RP}</td><td>RegisterProxy</td><td>ref proxy</td></tr>
 *   <tr><td>{@code RA}</td><td>RegisterAck</td><td>ref coordinator, uvarlong term*</td></tr>
 *   <tr><td>{@code GH}</td><td>GetShardHome</td><td>str shardId, ref region</td></tr>
 *   <tr><td>{@code H}</td><td>ShardHome</td><td>str shardId, ref region, uvarlong term*, byte confirmStart*
 *       (written only when 1)</td></tr>
 *   <tr><td>{@code HS}</td><td>ShardStarted</td><td>str shardId, ref region</td></tr>
 *   <tr><td>{@code GR}</td><td>GetCurrentRegions</td><td>ref replyTo</td></tr>
 *   <tr><td>{@code CR}</td><td>CurrentRegions</td><td>uvarint n, n &times; &sect;(ref)</td></tr>
 *   <tr><td>{@code GS}</td><td>GetRegionStats</td><td>ref replyTo</td></tr>
 *   <tr><td>{@code S}</td><td>RegionStats</td><td>uvarint n, n &times; &sect;(str shardId, svarint count)</td></tr>
 *   <tr><td>{@code E}</td><td>ShardingEnvelope</td><td>str entityId, payload message</td></tr>
 *   <tr><td>{@code P}</td><td>Passivate</td><td>ref entity</td></tr>
 *   <tr><td>{@code BH}</td><td>BeginHandOff</td><td>str shardId, ref owner, uvarint n, n &times; &sect;(ref region), svarint handOffId, uvarlong term*</td></tr>
 *   <tr><td>{@code HM}</td><td>HandOffMarker</td><td>str shardId, ref region, svarint handOffId</td></tr>
 *   <tr><td>{@code SS}</td><td>ShardStopped</td><td>str shardId, ref region, svarint handOffId</td></tr>
 *   <tr><td>{@code BU}</td><td>BeginHandOff if unstarted</td><td>as {@code BH}</td></tr>
 *   <tr><td>{@code HD}</td><td>HandOffDeclined</td><td>str shardId, ref region, svarint handOffId</td></tr>
 *   <tr><td>{@code GD}</td><td>GracefulShutdownReq</td><td>ref region</td></tr>
 *   <tr><td>{@code DB}</td><td>DeliveryBatch</td><td>ref link, uvarlong seq, uvarint n, n &times; item</td></tr>
 *   <tr><td>{@code DA}</td><td>DeliveryAck</td><td>uvarlong seq, byte resend (0 or 1), byte flags* (bit 0: reads
 *       compact items)</td></tr>
 *   <tr><td>{@code HR}</td><td>ShardRefused</td><td>str shardId, str reason</td></tr>
 *   <tr><td>{@code HH}</td><td>ShardHomes</td><td>uvarlong term, uvarint n, n &times; &sect;(ref region, uvarint m, m &times; str shardId)</td></tr>
 * </table>
 *
 * <p>In format 0 the elements marked &sect; are written without their length; everything else is
 * as in format 1. Fields marked * were appended to format 1 (see above): a message that ends
 * before one is read with its default, {@link RegisterAck#NO_TERM} for a term.
 *
 * <p>A batch <b>item</b> (in both formats) is one tag byte, then a section: for tag {@code 'D'}
 * the fields of a Deliver (as under code {@code D}), for {@code 'M'} those of a HandOffMarker, for
 * {@code 'd'} a <b>compact</b> Deliver (appended to format 1). An item of a tag the reader does not
 * know comes back as an {@link UndeliverableItem}, and so does an item whose payload cannot be
 * deserialized, and the rest of the batch is read: one bad message must not make its whole batch
 * (and every resend of it) unreadable.
 *
 * <p>A compact Deliver ({@code 'd'}) leaves out what it shares with the compact item before it in
 * the same batch: byte flags, str typeName (if flag 1), str shardId, str entityId, svarint
 * serializer id and str manifest (if flag 2), uvarint length and the payload's bytes. Without flag
 * 1 the type name is the previous compact item's, without flag 2 the payload's serializer and
 * manifest are; a batch's first compact item has both. Other flags are undefined: such an item,
 * and one that shares a field no earlier item of the batch was read with, is an
 * {@link UndeliverableItem}. A link writes compact items only to a region whose
 * {@code DeliveryAck} set the flag "reads compact items"; a shardkit from before them sets no
 * flag, and gets {@code 'D'} items (see {@link DeliveryBatchWriter}).
 *
 * <ul>
 *   <li><b>uvarint</b>: unsigned little-endian base-128 varint, 1&ndash;5 bytes.
 *   <li><b>svarint</b>: an int zigzag-mapped to unsigned, then as uvarint.
 *   <li><b>uvarlong</b>: a non-negative long as uvarint, 1&ndash;9 bytes.
 *   <li><b>&sect;(&hellip;)</b>, a section: uvarint length, then that many bytes holding the
 *       fields listed, and possibly more that a later shardkit appended.
 *   <li><b>str</b>: uvarint (UTF-8 byte length + 1), then the bytes; a length of 0 is null. An
 *       unpaired surrogate is written as the 3-byte sequence of its value (WTF-8), so every Java
 *       string comes back unchanged.
 *   <li><b>ref</b>: str holding the typed ref's {@link ActorRefResolver#toSerializationFormat}
 *       form (path with uid); null stays null.
 *   <li><b>payload</b>: the user's message serialized on its own by Pekko serialization, so any
 *       serializer the application binds works: svarint serializer id, str manifest
 *       ({@link Serializers#manifestFor}), uvarint length, the serializer's bytes.
 * </ul>
 *
 * <p>A payload that cannot be serialized (no binding, only Java serialization while that is
 * disabled, or a failing serializer) fails {@link #toBinary} with an {@link IllegalArgumentException}
 * naming the payload's class and the entity it was for.
 *
 * <h2>Validation</h2>
 *
 * <p>Required are every shard and entity id (valid by {@link ShardIds}: neither null nor empty),
 * a Deliver's type name and message, and every actor ref; {@link ProtocolFields} holds the rules.
 * {@link #toBinary} refuses a message that lacks one with an {@link IllegalArgumentException}
 * naming the message and the field, and {@link #fromBinary} refuses such bytes, and bytes that
 * are truncated, hold a length beyond what follows, or hold malformed UTF-8 (overlong sequences
 * included), with a {@link NotSerializableException} naming the manifest and what was wrong; it
 * never allocates more than the bytes can hold, and throws nothing else. Three places are
 * lenient on purpose: a batch item that breaks the rules becomes an {@link UndeliverableItem}
 * (see above); a Register's hosted shards leave an invalid id out (it is a hint, and the
 * registration matters more); and a ShardingEnvelope's entity id may be null or empty, because
 * it is the application's and its extractor judges it.
 *
 * <p>Internal API: public because Pekko creates it from the configuration; not for applications,
 * and it may change in any release.
 */
@InternalApi
public final class ShardingSerializer extends ShardkitSerializer {

  static final int DEFAULT_IDENTIFIER = 7241;
  /** The format version this shardkit writes; it reads this one and every earlier one. */
  static final int FORMAT = 1;

  static final String DELIVER = "D";
  static final String REGISTER = "R";
  static final String REGISTER_PROXY = "RP";
  static final String REGISTER_ACK = "RA";
  static final String GET_SHARD_HOME = "GH";
  static final String SHARD_HOME = "H";
  static final String GET_CURRENT_REGIONS = "GR";
  static final String CURRENT_REGIONS = "CR";
  static final String GET_REGION_STATS = "GS";
  static final String REGION_STATS = "S";
  static final String ENVELOPE = "E";
  static final String PASSIVATE = "P";
  static final String BEGIN_HAND_OFF = "BH";
  static final String HAND_OFF_MARKER = "HM";
  static final String SHARD_STOPPED = "SS";
  /** A BeginHandOff if unstarted: a manifest of its own, so that a reader from before it never reads a plain one. */
  static final String BEGIN_HAND_OFF_IF_UNSTARTED = "BU";
  static final String HAND_OFF_DECLINED = "HD";
  static final String GRACEFUL_SHUTDOWN = "GD";
  static final String DELIVERY_BATCH = "DB";
  static final String DELIVERY_ACK = "DA";
  static final String SHARD_REFUSED = "HR";
  static final String SHARD_HOMES = "HH";
  static final String SHARD_STARTED = "HS";

  /** Format 1, the one this shardkit writes; it writes collection elements as sections. */
  private static final int SECTIONED_ELEMENTS = 1;

  public static final byte ITEM_DELIVER = 'D';
  static final byte ITEM_MARKER = 'M';
  static final byte ITEM_DELIVER_COMPACT = 'd';
  /** A compact Deliver's flag: its type name is written, not the one of the compact item before it. */
  static final int COMPACT_TYPE_NAME = 1;
  /** A compact Deliver's flag: its payload's serializer id and manifest are written, not shared. */
  static final int COMPACT_SERIALIZER = 2;
  /** A DeliveryAck's appended flag: its sender reads {@link #ITEM_DELIVER_COMPACT} items. */
  private static final int ACK_READS_COMPACT_ITEMS = 1;


  // Looked up on first use, not in the constructor: Pekko builds serializers while the
  // Serialization extension itself is being created, so asking for it (or for ActorRefResolver,
  // which needs the typed system) from here could recurse into an unfinished extension.
  private volatile Serialization serialization;

  /** Called by Pekko, which creates one instance per actor system from the configuration. */
  /**
   * The bytes of the {@link ShardHomes} messages still referenced. The coordinator sends each one
   * to every region and proxy, and remoting serializes a message once per destination: kept here,
   * a message is checked and encoded once however many regions it reaches (an up-front placement of
   * 100 000 shards is 16 messages of up to 128 KiB; over 100 regions that is 16 encodings instead
   * of 1 600). Keys are weak, so an entry goes with its message once it has been sent everywhere;
   * an equal message gets the same bytes, as it would from encoding it again.
   */
  private final Map<ShardHomes, byte[]> shardHomesBytes = Collections.synchronizedMap(new WeakHashMap<>());

  public ShardingSerializer(ExtendedActorSystem system) {
    super(system, DEFAULT_IDENTIFIER);
  }

  @Override
  public String manifest(Object o) {
    if (o instanceof Deliver) {
      return DELIVER + FORMAT;
    } else if (o instanceof ShardingEnvelope) {
      return ENVELOPE + FORMAT;
    } else if (o instanceof Register) {
      return REGISTER + FORMAT;
    } else if (o instanceof RegisterProxy) {
      return REGISTER_PROXY + FORMAT;
    } else if (o instanceof RegisterAck) {
      return REGISTER_ACK + FORMAT;
    } else if (o instanceof GetShardHome) {
      return GET_SHARD_HOME + FORMAT;
    } else if (o instanceof ShardHomes) {
      return SHARD_HOMES + FORMAT;
    } else if (o instanceof ShardHome) {
      return SHARD_HOME + FORMAT;
    } else if (o instanceof ShardStarted) {
      return SHARD_STARTED + FORMAT;
    } else if (o instanceof GetCurrentRegions) {
      return GET_CURRENT_REGIONS + FORMAT;
    } else if (o instanceof CurrentRegions) {
      return CURRENT_REGIONS + FORMAT;
    } else if (o instanceof GetRegionStats) {
      return GET_REGION_STATS + FORMAT;
    } else if (o instanceof RegionStats) {
      return REGION_STATS + FORMAT;
    } else if (o instanceof Passivate) {
      return PASSIVATE + FORMAT;
    } else if (o instanceof BeginHandOff b) {
      return (b.ifUnstarted() ? BEGIN_HAND_OFF_IF_UNSTARTED : BEGIN_HAND_OFF) + FORMAT;
    } else if (o instanceof HandOffMarker) {
      return HAND_OFF_MARKER + FORMAT;
    } else if (o instanceof ShardStopped) {
      return SHARD_STOPPED + FORMAT;
    } else if (o instanceof HandOffDeclined) {
      return HAND_OFF_DECLINED + FORMAT;
    } else if (o instanceof GracefulShutdownReq) {
      return GRACEFUL_SHUTDOWN + FORMAT;
    } else if (o instanceof DeliveryBatch) {
      return DELIVERY_BATCH + FORMAT;
    } else if (o instanceof DeliveryAck) {
      return DELIVERY_ACK + FORMAT;
    } else if (o instanceof ShardRefused) {
      return SHARD_REFUSED + FORMAT;
    }
    throw cannotHandle(o);
  }

  @Override
  public byte[] toBinary(Object o) {
    if (o instanceof ShardHomes m) {
      // Looked up before the checks: a message with bytes here passed them when it was encoded.
      byte[] encoded = shardHomesBytes.get(m);
      if (encoded != null) {
        return encoded;
      }
    }
    ProtocolFields.problem(o).ifPresent(problem -> {
      throw new IllegalArgumentException("shardkit's ShardingSerializer (id " + identifier() + ") cannot serialize "
          + problem);
    });
    if (o instanceof Deliver d) {
      return deliverBytes(d);
    } else if (o instanceof DeliveryBatch b) {
      List<EncodedItem> items = encodedItems(b.items());
      int size = 96;
      for (EncodedItem item : items) {
        size += item.size();
      }
      BinaryWriter w = new BinaryWriter(size);
      writeRef(w, b.link());
      w.writeVarULong(b.seq());
      w.writeVarUInt(items.size());
      for (EncodedItem item : items) {
        w.writeByte(item.kind());
        w.writeBytes(item.buffer(), item.offset(), item.length());
      }
      return w.toByteArray();
    } else if (o instanceof DeliveryAck a) {
      BinaryWriter w = new BinaryWriter(12);
      w.writeVarULong(a.seq());
      w.writeByte((byte) (a.resend() ? 1 : 0));
      w.writeByte((byte) (a.readsCompactItems() ? ACK_READS_COMPACT_ITEMS : 0));
      return w.toByteArray();
    } else if (o instanceof ShardingEnvelope<?> e) {
      Payload payload = serializePayload(e.message(),
          () -> "for entity [" + e.entityId() + "] in a ShardingEnvelope");
      BinaryWriter w = new BinaryWriter(16 + payload.sizeHint());
      w.writeString(e.entityId());
      payload.writeTo(w);
      return w.toByteArray();
    } else if (o instanceof Register m) {
      BinaryWriter w = new BinaryWriter(72 + 8 * m.hostedShards().size());
      writeRef(w, m.region());
      w.writeVarUInt(m.hostedShards().size());
      for (String shard : m.hostedShards()) {
        w.writeSection(e -> e.writeString(shard));
      }
      return w.toByteArray();
    } else if (o instanceof RegisterProxy m) {
      return refOnly(m.proxy());
    } else if (o instanceof RegisterAck m) {
      BinaryWriter w = new BinaryWriter(88);
      writeRef(w, m.coordinator());
      w.writeVarULong(m.term());
      return w.toByteArray();
    } else if (o instanceof GetCurrentRegions m) {
      return refOnly(m.replyTo());
    } else if (o instanceof GetRegionStats m) {
      return refOnly(m.replyTo());
    } else if (o instanceof Passivate m) {
      return refOnly(m.entity());
    } else if (o instanceof GracefulShutdownReq m) {
      return refOnly(m.region());
    } else if (o instanceof HandOffMarker m) {
      return shardRefAndMove(m.shardId(), m.region(), m.handOffId());
    } else if (o instanceof ShardStopped m) {
      return shardRefAndMove(m.shardId(), m.region(), m.handOffId());
    } else if (o instanceof HandOffDeclined m) {
      return shardRefAndMove(m.shardId(), m.region(), m.handOffId());
    } else if (o instanceof BeginHandOff m) {
      BinaryWriter w = new BinaryWriter(80 + 64 * m.regions().size());
      w.writeString(m.shardId());
      writeRef(w, m.owner());
      w.writeVarUInt(m.regions().size());
      for (ActorRef<Object> region : m.regions()) {
        w.writeSection(e -> writeRef(e, region));
      }
      w.writeVarInt(m.handOffId());
      w.writeVarULong(m.term());
      return w.toByteArray();
    } else if (o instanceof GetShardHome m) {
      return shardAndRef(m.shardId(), m.region());
    } else if (o instanceof ShardHome m) {
      BinaryWriter w = new BinaryWriter(104);
      w.writeString(m.shardId());
      writeRef(w, m.region());
      w.writeVarULong(m.term());
      if (m.confirmStart()) {
        // Appended: a reader that does not know it skips it; written only when set, so that a
        // home told without it reads as before.
        w.writeByte((byte) 1);
      }
      return w.toByteArray();
    } else if (o instanceof ShardStarted m) {
      return shardAndRef(m.shardId(), m.region());
    } else if (o instanceof ShardHomes m) {
      byte[] encoded = shardHomes(m);
      shardHomesBytes.put(m, encoded);
      return encoded;
    } else if (o instanceof ShardRefused m) {
      BinaryWriter w = new BinaryWriter(16 + 3 * (m.shardId().length() + m.reason().length()));
      w.writeString(m.shardId());
      w.writeString(m.reason());
      return w.toByteArray();
    } else if (o instanceof CurrentRegions m) {
      BinaryWriter w = new BinaryWriter(8 + 64 * m.regions().size());
      w.writeVarUInt(m.regions().size());
      for (ActorRef<Object> region : m.regions()) {
        w.writeSection(e -> writeRef(e, region));
      }
      return w.toByteArray();
    } else if (o instanceof RegionStats m) {
      BinaryWriter w = new BinaryWriter(8 + 16 * m.entityCounts().size());
      w.writeVarUInt(m.entityCounts().size());
      for (Map.Entry<String, Integer> entry : m.entityCounts().entrySet()) {
        if (entry.getValue() == null) {
          throw new IllegalArgumentException("RegionStats has no entity count (null) for shard [" + entry.getKey() + "]");
        }
        w.writeSection(e -> {
          e.writeString(entry.getKey());
          e.writeVarInt(entry.getValue());
        });
      }
      return w.toByteArray();
    }
    throw cannotHandle(o);
  }

  @Override
  public Object fromBinary(byte[] bytes, String manifest) throws NotSerializableException {
    Object message = decode(bytes, manifest);
    // Checked once decoded, by the same rules as before writing: a handler never sees a message
    // without its ids or refs.
    Optional<String> problem = ProtocolFields.problem(message);
    if (problem.isPresent()) {
      throw new NotSerializableException("shardkit cannot read a message with manifest [" + manifest + "] ("
          + bytes.length + " bytes): " + problem.get());
    }
    return message;
  }

  private Object decode(byte[] bytes, String manifest) throws NotSerializableException {
    WireManifest m = WireManifest.parse(manifest);
    int v = m.version();
    if (v > FORMAT) {
      throw m.newerThan(FORMAT, "ShardingSerializer (id " + identifier() + ")", bytes.length);
    }
    BinaryReader r = new BinaryReader(bytes);
    try {
      switch (m.code()) {
        case DELIVER:
          return readDeliver(r);
        case DELIVERY_BATCH: {
          ActorRef<Object> link = readRef(r);
          long seq = r.readVarULong();
          int n = r.readVarUInt();
          List<Object> items = new ArrayList<>(Math.min(n, r.remaining()));
          SharedFields shared = new SharedFields();
          for (int i = 0; i < n; i++) {
            items.add(readItem(r, shared));
          }
          return new DeliveryBatch(link, seq, items);
        }
        case DELIVERY_ACK: {
          long seq = r.readVarULong();
          boolean resend = r.readByte() != 0;
          // Appended to format 1: a shardkit that did not write it reads no compact items.
          boolean compact = r.remaining() > 0 && (r.readByte() & ACK_READS_COMPACT_ITEMS) != 0;
          return new DeliveryAck(seq, resend, compact);
        }
        case ENVELOPE: {
          String entityId = r.readString();
          Object message = readPayload(r, () -> "for entity [" + entityId + "] in a ShardingEnvelope");
          return new ShardingEnvelope<>(entityId, message);
        }
        case REGISTER: {
          ActorRef<Object> region = readRef(r);
          int n = r.readVarUInt();
          Set<String> hosted = new HashSet<>(capacityFor(Math.min(n, r.remaining())));
          for (int i = 0; i < n; i++) {
            // A hint for a coordinator without stored state: an id no region could host is left
            // out rather than costing the region its registration.
            String shard = element(r, v, BinaryReader::readString);
            if (ShardIds.isValid(shard)) {
              hosted.add(shard);
            }
          }
          return new Register(region, Collections.unmodifiableSet(hosted));
        }
        case REGISTER_PROXY:
          return new RegisterProxy(readRef(r));
        case REGISTER_ACK:
          return new RegisterAck(readRef(r), readTerm(r));
        case GET_SHARD_HOME:
          return new GetShardHome(r.readString(), readRef(r));
        case SHARD_HOME: {
          String shardId = r.readString();
          ActorRef<Object> region = readRef(r);
          long term = readTerm(r);
          return new ShardHome(shardId, region, term, r.remaining() > 0 && r.readByte() == 1);
        }
        case SHARD_STARTED:
          return new ShardStarted(r.readString(), readRef(r));
        case SHARD_HOMES:
          return readShardHomes(r, v);
        case SHARD_REFUSED:
          return new ShardRefused(r.readString(), r.readString());
        case GET_CURRENT_REGIONS:
          return new GetCurrentRegions(readRef(r));
        case GET_REGION_STATS:
          return new GetRegionStats(readRef(r));
        case PASSIVATE:
          return new Passivate(readRef(r));
        case GRACEFUL_SHUTDOWN:
          return new GracefulShutdownReq(readRef(r));
        case HAND_OFF_MARKER:
          return new HandOffMarker(r.readString(), readRef(r), r.readVarInt());
        case SHARD_STOPPED:
          return new ShardStopped(r.readString(), readRef(r), r.readVarInt());
        case HAND_OFF_DECLINED:
          return new HandOffDeclined(r.readString(), readRef(r), r.readVarInt());
        case BEGIN_HAND_OFF:
        case BEGIN_HAND_OFF_IF_UNSTARTED: {
          String shardId = r.readString();
          ActorRef<Object> owner = readRef(r);
          return new BeginHandOff(shardId, owner, readRefs(r, v), r.readVarInt(), readTerm(r),
              m.code().equals(BEGIN_HAND_OFF_IF_UNSTARTED));
        }
        case CURRENT_REGIONS:
          return new CurrentRegions(readRefs(r, v));
        case REGION_STATS: {
          int n = r.readVarUInt();
          Map<String, Integer> counts = new HashMap<>(capacityFor(Math.min(n, r.remaining() / 2)));
          for (int i = 0; i < n; i++) {
            element(r, v, e -> counts.put(e.readString(), e.readVarInt()));
          }
          return new RegionStats(Collections.unmodifiableMap(counts));
        }
        default:
          throw new NotSerializableException("shardkit's ShardingSerializer (id " + identifier()
              + ") does not know the manifest [" + manifest + "] (" + bytes.length
              + " bytes); was it sent by a newer shardkit version?");
      }
    } catch (IllegalArgumentException e) {
      NotSerializableException wrapped = new NotSerializableException(
          "shardkit cannot read a message with manifest [" + manifest + "] (" + bytes.length + " bytes): " + e.getMessage());
      wrapped.initCause(e);
      throw wrapped;
    }
  }

  /**
   * Grouped by region, so each region's ref is written once however many shards live there;
   * regions and ids in order, so the same homes always give the same bytes.
   */
  private byte[] shardHomes(ShardHomes m) {
    // Grouped by reference first, so that each region's reference is formatted once, not once per
    // shard: a message holds thousands of homes in a few regions.
    Map<ActorRef<Object>, List<String>> byRef = new HashMap<>();
    int idChars = 0;
    for (Map.Entry<String, ActorRef<Object>> home : m.homes().entrySet()) {
      byRef.computeIfAbsent(home.getValue(), r -> new ArrayList<>()).add(home.getKey());
      idChars += home.getKey().length();
    }
    Map<String, List<String>> byRegion = new TreeMap<>();
    byRef.forEach((ref, shardIds) -> byRegion.merge(resolver().toSerializationFormat(ref), shardIds, (a, b) -> {
      a.addAll(b);
      return a;
    }));
    BinaryWriter w = new BinaryWriter(16 + 3 * idChars + 5 * m.homes().size() + 128 * byRegion.size());
    w.writeVarULong(m.term());
    w.writeVarUInt(byRegion.size());
    for (Map.Entry<String, List<String>> region : byRegion.entrySet()) {
      List<String> shardIds = region.getValue();
      shardIds.sort(null);
      w.writeSection(e -> {
        e.writeString(region.getKey());
        e.writeVarUInt(shardIds.size());
        shardIds.forEach(e::writeString);
      });
    }
    return w.toByteArray();
  }

  /** @throws IllegalArgumentException if a shard is named twice: it cannot have two homes */
  private ShardHomes readShardHomes(BinaryReader r, int version) {
    long term = r.readVarULong();
    int regions = r.readVarUInt();
    // Every shard id takes at least one byte, which bounds what a corrupt count can allocate.
    Map<String, ActorRef<Object>> homes = new HashMap<>(capacityFor(Math.min(regions, r.remaining())));
    for (int i = 0; i < regions; i++) {
      element(r, version, e -> {
        ActorRef<Object> region = requiredRef(e, "homes");
        int n = e.readVarUInt();
        for (int j = 0; j < n; j++) {
          String shardId = e.readString();
          if (homes.put(shardId, region) != null) {
            throw new IllegalArgumentException("shard [" + shardId + "] is given two homes");
          }
        }
        return null;
      });
    }
    return new ShardHomes(homes, term);
  }

  /** A coordinator's term appended to a message; {@link RegisterAck#NO_TERM} if the writer sent none. */
  private static long readTerm(BinaryReader r) {
    return r.remaining() > 0 ? r.readVarULong() : RegisterAck.NO_TERM;
  }

  /** One element of a collection: in a section from format 1 on, bare in format 0. */
  private static <T> T element(BinaryReader r, int version, Function<BinaryReader, T> read) {
    return version >= SECTIONED_ELEMENTS ? r.readSection(read) : read.apply(r);
  }

  private Set<ActorRef<Object>> readRefs(BinaryReader r, int version) {
    int n = r.readVarUInt();
    // Every element takes at least one byte, which bounds what a corrupt count can allocate.
    Set<ActorRef<Object>> refs = new HashSet<>(capacityFor(Math.min(n, r.remaining())));
    for (int i = 0; i < n; i++) {
      refs.add(element(r, version, e -> requiredRef(e, "regions")));
    }
    return Collections.unmodifiableSet(refs);
  }

  /**
   * Turns a Deliver or a HandOffMarker into a batch item of its own, in the encoding every
   * shardkit reads ({@link #ITEM_DELIVER}, {@link #ITEM_MARKER}).
   *
   * @throws IllegalArgumentException naming the entity, if a Deliver's message cannot be
   *     serialized; naming the field, if the item lacks a required one
   */
  EncodedItem encodeItem(Object item) {
    return new DeliveryBatchWriter(this, false, 64).write(item);
  }

  /**
   * A batch's items as the link encoded them; items given as messages (by shardkit's tests, say)
   * are encoded here, compactly, together: a compact item may share fields with the one before
   * it, so the link's items of one batch are always encoded by one writer and sent together.
   */
  private List<EncodedItem> encodedItems(List<Object> items) {
    List<EncodedItem> encoded = new ArrayList<>(items.size());
    DeliveryBatchWriter writer = null;
    for (Object item : items) {
      if (item instanceof EncodedItem e) {
        encoded.add(e);
      } else {
        if (writer == null) {
          writer = new DeliveryBatchWriter(this, true, 64 * items.size());
        }
        encoded.add(writer.write(item));
      }
    }
    return encoded;
  }

  private byte[] deliverBytes(Deliver d) {
    Payload payload = serializePayload(d.message(), whereFor(d.typeName(), d.entityId()));
    BinaryWriter w = new BinaryWriter(24 + payload.sizeHint());
    writeDeliverFields(w, d, payload);
    return w.toByteArray();
  }

  /** The fields of a Deliver (as under code {@code D}, and in an {@link #ITEM_DELIVER} item). */
  void writeDeliverFields(BinaryWriter w, Deliver d, Payload payload) {
    w.writeString(d.typeName());
    w.writeString(d.shardId());
    w.writeString(d.entityId());
    payload.writeTo(w);
  }

  /** The fields of a HandOffMarker (as under code {@code HM}, and in an {@link #ITEM_MARKER} item). */
  void writeMarkerFields(BinaryWriter w, HandOffMarker m) {
    writeShardRefAndMove(w, m.shardId(), m.region(), m.handOffId());
  }

  /** Where a Deliver's message was going, for an error about it; built only if there is one. */
  static Supplier<String> whereFor(String typeName, String entityId) {
    return () -> "for entity [" + entityId + "] of type [" + typeName + "]";
  }

  private Deliver readDeliver(BinaryReader r) throws NotSerializableException {
    String typeName = r.readString();
    String shardId = r.readString();
    String entityId = r.readString();
    Object message = readPayload(r, whereFor(typeName, entityId));
    return new Deliver(typeName, shardId, entityId, message);
  }

  /**
   * What a compact item read shares with the compact item after it. A field is null (or the id
   * unknown) when no earlier item set it, or when the item that was setting it could not be read:
   * an item that would share it is then undeliverable too, rather than taken with another item's
   * field.
   */
  private static final class SharedFields {
    String typeName;
    int serializerId;
    String manifest;
  }

  /** One batch item; one that cannot be read becomes an {@link UndeliverableItem}. */
  private Object readItem(BinaryReader r, SharedFields shared) {
    byte kind = r.readByte();
    return r.readSection(item -> {
      if (kind == ITEM_DELIVER_COMPACT) {
        return readCompactDeliver(item, shared);
      } else if (kind == ITEM_DELIVER) {
        String typeName = null;
        String entityId = null;
        try {
          typeName = item.readString();
          String shardId = item.readString();
          entityId = item.readString();
          return checkedItem(new Deliver(typeName, shardId, entityId, readPayload(item, whereFor(typeName, entityId))));
        } catch (NotSerializableException | IllegalArgumentException e) {
          return new UndeliverableItem(typeName, entityId, e.getMessage());
        }
      } else if (kind == ITEM_MARKER) {
        return checkedItem(new HandOffMarker(item.readString(), readRef(item), item.readVarInt()));
      }
      return new UndeliverableItem(null, null, "a batch item of kind 0x" + Integer.toHexString(kind & 0xFF)
          + " that this shardkit version does not know (sent by a newer version?)");
    });
  }

  private Object readCompactDeliver(BinaryReader item, SharedFields shared) {
    String entityId = null;
    String typeName = null;
    try {
      int flags = item.readByte() & 0xFF;
      if ((flags & ~(COMPACT_TYPE_NAME | COMPACT_SERIALIZER)) != 0) {
        shared.typeName = null;
        shared.manifest = null;
        throw new IllegalArgumentException("a compact delivery with the unknown flags 0x" + Integer.toHexString(flags));
      }
      if ((flags & COMPACT_TYPE_NAME) != 0) {
        shared.typeName = null;
        shared.typeName = item.requiredString("typeName");
      }
      typeName = shared.typeName;
      String shardId = item.readString();
      entityId = item.readString();
      if (typeName == null) {
        throw new IllegalArgumentException("a compact delivery shares the type name of an earlier item, but none "
            + "that was read has one");
      }
      if ((flags & COMPACT_SERIALIZER) != 0) {
        shared.manifest = null;
        int serializerId = item.readVarInt();
        String manifest = item.readString();
        shared.serializerId = serializerId;
        shared.manifest = manifest == null ? "" : manifest;
      } else if (shared.manifest == null) {
        throw new IllegalArgumentException("a compact delivery shares the serializer of an earlier item, but none "
            + "that was read has one");
      }
      Object message = deserializePayload(shared.serializerId, shared.manifest, item.readBytes(),
          whereFor(typeName, entityId));
      return checkedItem(new Deliver(typeName, shardId, entityId, message));
    } catch (NotSerializableException | IllegalArgumentException e) {
      return new UndeliverableItem(typeName, entityId, e.getMessage());
    }
  }

  /** An item that lacks a required field is undeliverable, like one that cannot be read at all. */
  private static Object checkedItem(Object item) {
    Optional<String> problem = ProtocolFields.problem(item);
    if (problem.isEmpty()) {
      return item;
    }
    return item instanceof Deliver d ? new UndeliverableItem(d.typeName(), d.entityId(), problem.get())
        : new UndeliverableItem(null, null, problem.get());
  }

  private byte[] refOnly(ActorRef<?> ref) {
    BinaryWriter w = new BinaryWriter(80);
    writeRef(w, ref);
    return w.toByteArray();
  }

  private byte[] shardRefAndMove(String shardId, ActorRef<?> ref, int handOffId) {
    BinaryWriter w = new BinaryWriter(80);
    writeShardRefAndMove(w, shardId, ref, handOffId);
    return w.toByteArray();
  }

  /** The fields HandOffMarker, ShardStopped and HandOffDeclined have in common. */
  private void writeShardRefAndMove(BinaryWriter w, String shardId, ActorRef<?> ref, int handOffId) {
    w.writeString(shardId);
    writeRef(w, ref);
    w.writeVarInt(handOffId);
  }

  private byte[] shardAndRef(String shardId, ActorRef<?> ref) {
    BinaryWriter w = new BinaryWriter(96);
    w.writeString(shardId);
    writeRef(w, ref);
    return w.toByteArray();
  }

  private void writeRef(BinaryWriter w, ActorRef<?> ref) {
    w.writeString(ref == null ? null : resolver().toSerializationFormat(ref));
  }

  /** A ref, or null if it is missing (null or empty): {@link ProtocolFields} then names the field. */
  private ActorRef<Object> readRef(BinaryReader r) {
    String s = r.readString();
    return s == null || s.isEmpty() ? null : resolver().resolveActorRef(s);
  }

  /** A ref inside a collection, which cannot hold a null. */
  private ActorRef<Object> requiredRef(BinaryReader r, String field) {
    return resolver().resolveActorRef(r.requiredString(field));
  }

  /** A nested message already turned into bytes, so its size is known before we write ours. */
  record Payload(int serializerId, String manifest, byte[] bytes) {
    int sizeHint() {
      return 16 + manifest.length() * 3 + bytes.length;
    }

    void writeTo(BinaryWriter w) {
      w.writeVarInt(serializerId);
      w.writeString(manifest);
      w.writeBytes(bytes);
    }
  }

  private Payload serializePayload(Object message, Supplier<String> where) {
    return serializePayload(message, payloadSerializer(message, where), where);
  }

  /**
   * The serializer Pekko binds to {@code message}'s class (Pekko chooses by class alone, so a
   * caller may keep it for other messages of the class).
   *
   * @throws IllegalArgumentException naming {@code message}'s class and {@code where} it was going,
   *     if it has none or only disabled Java serialization
   */
  Serializer payloadSerializer(Object message, Supplier<String> where) {
    Serializer serializer;
    try {
      serializer = serialization().findSerializerFor(message);
    } catch (Exception e) {
      throw cannotSerialize(message, where, e.getMessage(), e);
    }
    // Checked up front rather than left to toBinary: the disabled serializer's own error says
    // nothing about which class needs a binding, and it also logs a warning of its own.
    if (serializer instanceof DisabledJavaSerializer) {
      throw cannotSerialize(message, where,
          "its only serializer is Java serialization, which is disabled (pekko.actor.allow-java-serialization = off); "
              + "bind the class, or an interface it implements, to a serializer such as jackson-cbor "
              + "in pekko.actor.serialization-bindings", null);
    }
    return serializer;
  }

  /**
   * {@code message} serialized by {@code serializer}.
   *
   * @throws IllegalArgumentException naming {@code message}'s class and {@code where} it was
   *     going, if the serializer fails
   */
  Payload serializePayload(Object message, Serializer serializer, Supplier<String> where) {
    try {
      String manifest = Serializers.manifestFor(serializer, message);
      byte[] bytes = serializer.toBinary(message);
      return new Payload(serializer.identifier(), manifest == null ? "" : manifest, bytes);
    } catch (Exception e) {
      throw cannotSerialize(message, where,
          "serializer " + serializer.getClass().getName() + " (id " + serializer.identifier() + ") failed: " + e, e);
    }
  }

  private Object readPayload(BinaryReader r, Supplier<String> where) throws NotSerializableException {
    int serializerId = r.readVarInt();
    String manifest = r.readString();
    return deserializePayload(serializerId, manifest == null ? "" : manifest, r.readBytes(), where);
  }

  private Object deserializePayload(int serializerId, String manifest, byte[] bytes, Supplier<String> where)
      throws NotSerializableException {
    Try<Object> result = serialization().deserialize(bytes, serializerId, manifest);
    if (result.isFailure()) {
      Throwable cause = result.failed().get();
      NotSerializableException e = new NotSerializableException("shardkit cannot deserialize the message "
          + where.get() + " (serializer id " + serializerId + ", manifest [" + manifest + "], "
          + bytes.length + " bytes): " + cause);
      e.initCause(cause);
      throw e;
    }
    return result.get();
  }

  private static IllegalArgumentException cannotSerialize(
      Object message, Supplier<String> where, String reason, Throwable cause) {
    return new IllegalArgumentException("shardkit cannot serialize a message of class ["
        + (message == null ? "null" : message.getClass().getName()) + "] " + where.get() + ": " + reason, cause);
  }

  private IllegalArgumentException cannotHandle(Object o) {
    return new IllegalArgumentException("shardkit's ShardingSerializer (id " + identifier()
        + ") cannot serialize [" + (o == null ? "null" : o.getClass().getName())
        + "]; it handles only ShardingProtocol messages, ShardingEnvelope and Passivate");
  }

  private static int capacityFor(int elements) {
    return (int) (elements / 0.75f) + 1;
  }

  private Serialization serialization() {
    Serialization s = serialization;
    if (s == null) {
      s = SerializationExtension.get(system);
      serialization = s;
    }
    return s;
  }
}
