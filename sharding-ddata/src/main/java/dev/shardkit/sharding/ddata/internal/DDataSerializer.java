package dev.shardkit.sharding.ddata.internal;

import dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord.Version;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.UTFDataFormatException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * Pekko serializer for the data this module replicates: {@link CoordinatorStateRecord}. Bound to
 * it in this module's {@code reference.conf}; its identifier is 7242 unless
 * {@code pekko.actor.serialization-identifiers} says otherwise.
 *
 * <h2>Format of manifest {@code C} (a coordinator state record)</h2>
 *
 * Big-endian, as {@link DataOutputStream} writes: byte format (1); the version and the basis,
 * each as long term, long seq, str writer; int n regions, each as ref region, int m, m &times; str
 * shardId (in allocation order); int p proxies, each as ref, sorted so that equal records give
 * equal bytes (the replicator compares digests of the bytes to decide what to gossip). A
 * <b>str</b> is {@link DataOutputStream#writeUTF}'s modified UTF-8 (at most 65535 bytes), which
 * carries every Java string unchanged, unpaired surrogates included; a <b>ref</b> is a str with
 * the ref's {@link ActorRefResolver#toSerializationFormat} form. Readers ignore bytes after the
 * last field they know, so a later version may append fields; any other change needs a new
 * format byte.
 *
 * <p>Unknown manifests, unknown formats and bytes that are truncated or do not describe a valid
 * {@link CoordinatorState} fail {@link #fromBinary} with a {@link NotSerializableException} that
 * says which.
 */
public final class DDataSerializer extends SerializerWithStringManifest {
  static final int DEFAULT_IDENTIFIER = 7242;
  static final String COORDINATOR_STATE = "C";
  private static final int FORMAT = 1;
  /** The least bytes a str takes (its length); bounds what a corrupt count can make us allocate. */
  private static final int MIN_STR = 2;

  private final ExtendedActorSystem system;
  private final int identifier;
  // Looked up on first use: Pekko creates serializers while its Serialization extension is being
  // created, and the typed ActorRefResolver cannot be asked for from inside that.
  private volatile ActorRefResolver resolver;

  /** Called by Pekko, which creates one instance per actor system from the configuration. */
  public DDataSerializer(ExtendedActorSystem system) {
    this.system = system;
    String key = "pekko.actor.serialization-identifiers.\"" + DDataSerializer.class.getName() + "\"";
    var config = system.settings().config();
    this.identifier = config.hasPath(key) ? config.getInt(key) : DEFAULT_IDENTIFIER;
  }

  @Override
  public int identifier() {
    return identifier;
  }

  @Override
  public String manifest(Object o) {
    if (o instanceof CoordinatorStateRecord) {
      return COORDINATOR_STATE;
    }
    throw cannotHandle(o);
  }

  @Override
  public byte[] toBinary(Object o) {
    if (!(o instanceof CoordinatorStateRecord record)) {
      throw cannotHandle(o);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    DataOutputStream out = new DataOutputStream(bytes);
    String current = "the record's header";
    try {
      out.writeByte(FORMAT);
      writeVersion(out, record.version());
      writeVersion(out, record.basis());
      Map<ActorRef<Object>, List<String>> regions = record.state().regions();
      out.writeInt(regions.size());
      for (Map.Entry<ActorRef<Object>, List<String>> region : regions.entrySet()) {
        current = "region " + region.getKey();
        out.writeUTF(resolver().toSerializationFormat(region.getKey()));
        out.writeInt(region.getValue().size());
        for (String shard : region.getValue()) {
          current = "shard [" + shard + "]";
          out.writeUTF(shard);
        }
      }
      List<String> proxies = new ArrayList<>();
      record.state().proxies().forEach(p -> proxies.add(resolver().toSerializationFormat(p)));
      proxies.sort(null);
      out.writeInt(proxies.size());
      for (String proxy : proxies) {
        current = "proxy " + proxy;
        out.writeUTF(proxy);
      }
      out.flush();
    } catch (UTFDataFormatException e) {
      throw new IllegalArgumentException("shardkit cannot serialize the coordinator state: " + current
          + " is longer than 65535 UTF-8 bytes", e);
    } catch (IOException e) {
      // A ByteArrayOutputStream does not fail; this keeps the compiler satisfied.
      throw new IllegalStateException(e);
    }
    return bytes.toByteArray();
  }

  private static void writeVersion(DataOutputStream out, Version v) throws IOException {
    out.writeLong(v.term());
    out.writeLong(v.seq());
    out.writeUTF(v.writer());
  }

  @Override
  public Object fromBinary(byte[] bytes, String manifest) throws NotSerializableException {
    if (!COORDINATOR_STATE.equals(manifest)) {
      throw new NotSerializableException("shardkit's DDataSerializer (id " + identifier + ") does not know the "
          + "manifest [" + manifest + "] (" + bytes.length + " bytes); was it written by a newer shardkit version?");
    }
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    try {
      int format = in.readUnsignedByte();
      if (format != FORMAT) {
        throw new NotSerializableException("shardkit cannot read a coordinator state record in format " + format
            + " (this version reads format " + FORMAT + "); was it written by a newer shardkit version?");
      }
      Version version = readVersion(in);
      Version basis = readVersion(in);
      CoordinatorState state = CoordinatorState.empty();
      List<ShardHomeAllocated> allocations = new ArrayList<>();
      int regions = readCount(in, MIN_STR + 4, "regions");
      for (int i = 0; i < regions; i++) {
        ActorRef<Object> region = resolver().resolveActorRef(in.readUTF());
        state = state.applied(new RegionRegistered(region));
        int shards = readCount(in, MIN_STR, "shards");
        for (int j = 0; j < shards; j++) {
          allocations.add(new ShardHomeAllocated(in.readUTF(), region));
        }
      }
      // Rebuilt in the order of CoordinatorState.toEvents: regions, proxies, then shard homes.
      int proxies = readCount(in, MIN_STR, "proxies");
      for (int i = 0; i < proxies; i++) {
        state = state.applied(new ProxyRegistered(resolver().resolveActorRef(in.readUTF())));
      }
      for (ShardHomeAllocated allocation : allocations) {
        state = state.applied(allocation);
      }
      return new CoordinatorStateRecord(version, basis, state);
    } catch (EOFException e) {
      throw corrupt(bytes, "it ends before the last field", e);
    } catch (UTFDataFormatException e) {
      throw corrupt(bytes, "a string is not valid modified UTF-8 (" + e.getMessage() + ")", e);
    } catch (NotSerializableException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      // IllegalStateException: the state breaks an invariant, e.g. a shard listed under two regions.
      throw corrupt(bytes, e.getMessage(), e);
    }
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
    NotSerializableException e = new NotSerializableException("shardkit cannot read a coordinator state record of "
        + bytes.length + " bytes, truncated or corrupt: " + why);
    e.initCause(cause);
    return e;
  }

  private ActorRefResolver resolver() {
    ActorRefResolver r = resolver;
    if (r == null) {
      r = ActorRefResolver.get(Adapter.toTyped(system));
      resolver = r;
    }
    return r;
  }

  private IllegalArgumentException cannotHandle(Object o) {
    return new IllegalArgumentException("shardkit's DDataSerializer (id " + identifier + ") cannot serialize "
        + (o == null ? "null" : "an object of class [" + o.getClass().getName() + "]"));
  }
}
