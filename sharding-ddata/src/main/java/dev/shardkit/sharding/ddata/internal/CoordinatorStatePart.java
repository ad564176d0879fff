package dev.shardkit.sharding.ddata.internal;

import dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord.Version;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import org.apache.pekko.cluster.ddata.AbstractReplicatedData;
import org.jspecify.annotations.Nullable;

/**
 * One part of a coordinator state split over several keys ({@link CoordinatorStateHead} explains
 * the split): the encoded part ({@link PartitionedCoordinatorState}) as written at
 * {@link #version}, and the part as it was at {@link #previousVersion}, the version the writer's
 * last confirmed head named. Keeping that one earlier copy is what lets a write of parts whose
 * head never got confirmed leave the last whole state readable.
 *
 * <p>Merging keeps the record with the greater version (term, seq, writer); a writer never writes
 * two records with one version, so that is a total order and merge is commutative, associative
 * and idempotent. Payloads are opaque here. Immutable; {@link #payload} hands out the array it
 * holds, which callers must not change.
 */
public final class CoordinatorStatePart extends AbstractReplicatedData<CoordinatorStatePart> {
  private final Version version;
  private final byte[] payload;
  private final @Nullable Version previousVersion;
  private final byte @Nullable [] previousPayload;

  /**
   * @param previousVersion null if the writer's confirmed head named no record of this part
   * @throws IllegalArgumentException if version or payload is null, exactly one of the previous
   *     version and payload is null, or the previous version is not older than the version
   */
  public CoordinatorStatePart(Version version, byte[] payload, @Nullable Version previousVersion,
      byte @Nullable [] previousPayload) {
    if (version == null || payload == null || (previousVersion == null) != (previousPayload == null)) {
      throw new IllegalArgumentException("A coordinator state part needs a version and a payload, and a previous "
          + "version together with its payload or neither; got version " + version + ", previous " + previousVersion);
    }
    if (previousVersion != null && previousVersion.compareTo(version) >= 0) {
      throw new IllegalArgumentException("A coordinator state part's previous version " + previousVersion
          + " must be older than its version " + version);
    }
    this.version = version;
    this.payload = payload;
    this.previousVersion = previousVersion;
    this.previousPayload = previousPayload;
  }

  public Version version() {
    return version;
  }

  public byte[] payload() {
    return payload;
  }

  public Optional<Version> previousVersion() {
    return Optional.ofNullable(previousVersion);
  }

  /** Empty when there is no previous version. */
  public Optional<byte[]> previousPayload() {
    return Optional.ofNullable(previousPayload);
  }

  /** The part as it was at {@code wanted}, if this record still holds it. */
  public Optional<byte[]> payloadAt(Version wanted) {
    if (version.equals(wanted)) {
      return Optional.of(payload);
    }
    return wanted.equals(previousVersion) ? Optional.of(previousPayload) : Optional.empty();
  }

  @Override
  public CoordinatorStatePart mergeData(CoordinatorStatePart that) {
    return version.compareTo(that.version) >= 0 ? this : that;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CoordinatorStatePart other && version.equals(other.version)
        && Arrays.equals(payload, other.payload) && Objects.equals(previousVersion, other.previousVersion)
        && Arrays.equals(previousPayload, other.previousPayload);
  }

  @Override
  public int hashCode() {
    return Objects.hash(version, previousVersion);
  }

  @Override
  public String toString() {
    return "CoordinatorStatePart(" + version + ", " + payload.length + " bytes"
        + (previousVersion == null ? "" : "; previous " + previousVersion + ", " + previousPayload.length + " bytes")
        + ")";
  }
}
