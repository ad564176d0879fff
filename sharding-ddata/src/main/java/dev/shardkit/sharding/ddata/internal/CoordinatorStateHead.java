package dev.shardkit.sharding.ddata.internal;

import dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord.Version;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntFunction;
import org.apache.pekko.cluster.ddata.AbstractReplicatedData;
import org.jspecify.annotations.Nullable;

/**
 * The head of one entity type's coordinator state, which is split over several keys so that no
 * replicated record grows with the number of shards (one record carried the whole state before,
 * and beyond about 30 000 shards it no longer fit Artery's frame). Under
 * {@link CoordinatorStateKeys#head} lives this small record; under {@link CoordinatorStateKeys#part}
 * the {@link CoordinatorStatePart}s: part 0 the directory (regions in registration order, proxies),
 * parts 1..n the shards, each shard in part {@code 1 + (stable hash of its id mod n)}. Immutable.
 *
 * <h2>Order</h2>
 *
 * Heads are ordered, and merge, exactly like the single records before them
 * ({@link CoordinatorStateRecord} explains why this makes the stored state never go backwards for
 * a successor, and why a deposed coordinator's writes lose): by term, seq, basis, writer. A
 * take-over is seq 0 of a term above every term its majority read saw; each batch of events is the
 * next seq of that term.
 *
 * <h2>Whole states from parts written one by one</h2>
 *
 * A head names, in {@link #parts}, the version of every part that makes up its state, and in
 * {@link #fallback} those of the state its writer had stored (confirmed) before it. The invariant:
 * <b>every part a head names was confirmed by a majority before the head was written, and every
 * part record a writer writes also carries the part as its last confirmed head named it</b>. So:
 *
 * <ul>
 *   <li>A write of one event rewrites only the parts the event touches, then the head, each with a
 *       majority write; a part written whose head was not (the write timed out) still holds the
 *       version the confirmed head names, and a load finds that one.
 *   <li>A head read by a majority is either confirmed, or a <em>stray</em> (its write reached some
 *       replicas only) that is greater than every confirmed head. A confirmed head's parts are
 *       found: its writer's later part writes keep them as their previous version until a later
 *       head is confirmed, which the majority read would have returned instead. A stray's parts may
 *       have been overwritten by a retry; then its fallback, its writer's confirmed state, is
 *       found, by the same argument. Either way the load gives a state that was stored as a whole
 *       (a stray's own state, when found, is the state after one more event its coordinator never
 *       announced, which {@link CoordinatorStateRecord} explains is harmless).
 *   <li>A take-over rewrites every part in its new term (and may choose another number of parts),
 *       so a deposed coordinator's later part writes, of a lower term, lose every merge against
 *       them, just as its head writes lose against the successor's head.
 * </ul>
 *
 * <p>The fallback is empty for a take-over that found nothing stored or took over a single record
 * of the build before the split ({@link CoordinatorStateKey}); a load that finds neither set of
 * parts of such a head whole reads that record again.
 */
public final class CoordinatorStateHead extends AbstractReplicatedData<CoordinatorStateHead>
    implements Comparable<CoordinatorStateHead> {
  private final Version version;
  private final Version basis;
  private final PartVersions parts;
  private final @Nullable PartVersions fallback;

  /**
   * @param fallback null if the writer had no confirmed parts to fall back on
   * @throws IllegalArgumentException if version, basis or parts is null, or the parts are not of
   *     the version's term and writer
   */
  public CoordinatorStateHead(Version version, Version basis, PartVersions parts, @Nullable PartVersions fallback) {
    if (version == null || basis == null || parts == null) {
      throw new IllegalArgumentException("A coordinator state head needs a version, a basis and part versions");
    }
    if (parts.term() != version.term() || !parts.writer().equals(version.writer())) {
      throw new IllegalArgumentException("A coordinator state head's parts (" + parts + ") must be of its own term "
          + "and writer (" + version + ")");
    }
    this.version = version;
    this.basis = basis;
    this.parts = parts;
    this.fallback = fallback;
  }

  public Version version() {
    return version;
  }

  /** The version of the state this head's state was derived from. */
  public Version basis() {
    return basis;
  }

  /** The parts of this head's state. */
  public PartVersions parts() {
    return parts;
  }

  /** The parts of the state its writer had confirmed when it wrote this head. */
  public Optional<PartVersions> fallback() {
    return Optional.ofNullable(fallback);
  }

  /**
   * The first of {@link #parts} and {@link #fallback} whose every part record {@code stored}
   * still holds, which makes a state stored as a whole; empty if neither is.
   *
   * @param stored the record read under a part's key, by index (0 the directory); empty if none
   */
  public Optional<PartVersions> wholeParts(IntFunction<Optional<CoordinatorStatePart>> stored) {
    for (PartVersions candidate : fallback == null ? List.of(parts) : List.of(parts, fallback)) {
      boolean whole = true;
      for (int i = 0; whole && i <= candidate.shardParts(); i++) {
        Version wanted = candidate.version(i);
        whole = stored.apply(i).flatMap(part -> part.payloadAt(wanted)).isPresent();
      }
      if (whole) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** The version of the state {@code whole} (from {@link #wholeParts}) makes: this head's, or its basis. */
  public Version versionOf(PartVersions whole) {
    return whole.equals(parts) ? version : basis;
  }

  /** The most parts either set of part versions names, the directory included. */
  public int partsToRead() {
    return 1 + Math.max(parts.shardParts(), fallback == null ? 0 : fallback.shardParts());
  }

  @Override
  public CoordinatorStateHead mergeData(CoordinatorStateHead that) {
    return compareTo(that) >= 0 ? this : that;
  }

  @Override
  public int compareTo(CoordinatorStateHead other) {
    return Version.compareRecords(version, basis, other.version, other.basis);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CoordinatorStateHead other && version.equals(other.version) && basis.equals(other.basis)
        && parts.equals(other.parts) && Objects.equals(fallback, other.fallback);
  }

  @Override
  public int hashCode() {
    return Objects.hash(version, basis);
  }

  @Override
  public String toString() {
    return "CoordinatorStateHead(" + version + ", from " + basis + ", " + parts.shardParts() + " shard part(s))";
  }
}
