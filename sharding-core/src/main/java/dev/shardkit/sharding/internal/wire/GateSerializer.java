package dev.shardkit.sharding.internal.wire;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.gate.GateProtocol.ConfirmMember;
import dev.shardkit.sharding.internal.gate.GateProtocol.MemberConfirmed;
import dev.shardkit.sharding.internal.gate.GateProtocol;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.UncheckedIOException;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;

/**
 * Pekko serializer for {@link GateProtocol}; identifier 7243 unless
 * {@code pekko.actor.serialization-identifiers} says otherwise.
 *
 * <p>Format: the manifest is the message's code and the format version of its bytes
 * ({@link WireManifest}); this version writes format 1 ({@code C1}, {@code CA1}) and reads format
 * 0 (the bare codes, written before formats carried versions), whose bytes are the same.
 *
 * <table>
 *   <caption>Codes and fields</caption>
 *   <tr><th>code</th><th>message</th><th>fields</th></tr>
 *   <tr><td>{@code C}</td><td>ConfirmMember</td><td>long round, long uid, ref replyTo</td></tr>
 *   <tr><td>{@code CA}</td><td>MemberConfirmed</td><td>long round, ref from, boolean current</td></tr>
 * </table>
 *
 * <p>A long is 8 bytes big-endian; a ref is the typed ref's
 * {@link ActorRefResolver#toSerializationFormat} form as modified UTF-8 with a 2-byte length; a
 * boolean one byte. Readers ignore bytes after the fields they know, so a later shardkit may
 * append fields without a new format version; any other change needs one, and a manifest of a
 * newer version than this one's is refused with a {@link NotSerializableException} naming it.
 *
 * <p>Every ref is required: {@link #toBinary} refuses a message without one with an
 * {@link IllegalArgumentException} naming the field, and {@link #fromBinary} refuses bytes with an
 * empty ref, truncated bytes and malformed modified UTF-8 with a {@link NotSerializableException}
 * naming the manifest and what was wrong.
 *
 * <p>Internal API: public because Pekko creates it from the configuration; not for applications,
 * and it may change in any release.
 */
@InternalApi
public final class GateSerializer extends ShardkitSerializer {

  static final int DEFAULT_IDENTIFIER = 7243;
  /** The format version this shardkit writes; it reads this one and every earlier one. */
  static final int FORMAT = 1;
  static final String CONFIRM = "C";
  static final String CONFIRMED = "CA";


  /** Called by Pekko, which creates one instance per actor system from the configuration. */
  public GateSerializer(ExtendedActorSystem system) {
    super(system, DEFAULT_IDENTIFIER);
  }

  @Override
  public String manifest(Object o) {
    if (o instanceof ConfirmMember) {
      return CONFIRM + FORMAT;
    } else if (o instanceof MemberConfirmed) {
      return CONFIRMED + FORMAT;
    }
    throw cannotHandle(o);
  }

  @Override
  public byte[] toBinary(Object o) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(96);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      if (o instanceof ConfirmMember m) {
        out.writeLong(m.round());
        out.writeLong(m.uid());
        out.writeUTF(ref(m.replyTo(), "replyTo"));
      } else if (o instanceof MemberConfirmed m) {
        out.writeLong(m.round());
        out.writeUTF(ref(m.from(), "from"));
        out.writeBoolean(m.current());
      } else {
        throw cannotHandle(o);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  @Override
  public Object fromBinary(byte[] bytes, String manifest) throws NotSerializableException {
    WireManifest m = WireManifest.parse(manifest);
    if (!CONFIRM.equals(m.code()) && !CONFIRMED.equals(m.code())) {
      throw new NotSerializableException("GateSerializer: unknown manifest [" + manifest + "]");
    }
    if (m.version() > FORMAT) {
      throw m.newerThan(FORMAT, "GateSerializer (id " + identifier() + ")", bytes.length);
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      if (CONFIRM.equals(m.code())) {
        return new ConfirmMember(in.readLong(), in.readLong(), readRef(in, "replyTo"));
      }
      return new MemberConfirmed(in.readLong(), readRef(in, "from"), in.readBoolean());
    } catch (IOException | IllegalArgumentException e) {
      NotSerializableException failure = new NotSerializableException("GateSerializer: cannot read a message of "
          + "manifest [" + manifest + "] (" + bytes.length + " bytes): " + e);
      failure.initCause(e);
      throw failure;
    }
  }

  /** @throws IllegalArgumentException naming the field if the ref is missing */
  private String ref(ActorRef<?> ref, String field) {
    if (ref == null) {
      throw new IllegalArgumentException("GateSerializer cannot serialize a message without its required field ["
          + field + "]");
    }
    return resolver().toSerializationFormat(ref);
  }

  private ActorRef<Object> readRef(DataInputStream in, String field) throws IOException {
    return resolver().resolveActorRef(BinaryReader.required(in.readUTF(), field));
  }

  private static IllegalArgumentException cannotHandle(Object o) {
    return new IllegalArgumentException("GateSerializer cannot serialize "
        + (o == null ? "null" : o.getClass().getName()));
  }
}
