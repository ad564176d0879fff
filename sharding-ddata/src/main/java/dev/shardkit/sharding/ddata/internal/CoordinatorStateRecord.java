package dev.shardkit.sharding.ddata.internal;

import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.Comparator;
import java.util.Objects;
import java.util.Optional;
import org.apache.pekko.cluster.ddata.AbstractReplicatedData;

/**
 * One entity type's coordinator state as versions before the split replicated it, under
 * {@link CoordinatorStateKey}: the whole {@link CoordinatorState} in one record, tagged with the
 * {@link Version} that orders it against every other record of the type. This version reads it
 * only to migrate it ({@link CoordinatorStateReader}) and stores the state as a
 * {@link CoordinatorStateHead} and its parts, which are ordered the same way; the argument below
 * holds for them (the head's Javadoc adds what the parts need). Merging
 * two records keeps the greater one, so replicas converge on the greatest record written (a total
 * order makes merge commutative, associative and idempotent, which is all a replicated data type
 * needs). Immutable.
 *
 * <h2>Why not a last-writer-wins register</h2>
 *
 * A register ordered by wall-clock time lets a stale write from a node whose clock runs ahead beat
 * a later write that a majority confirmed. Here the order comes from the coordinators themselves,
 * so it holds whatever the clocks say.
 *
 * <h2>The order, and why the stored state never goes backwards</h2>
 *
 * A record is greater if its term is greater, then its seq, then its basis (the version it was
 * derived from), then its writer. The store uses it like this:
 *
 * <ol>
 *   <li>A coordinator's store loads with a majority read, then <em>takes over</em>: it writes what
 *       it read, unchanged, as seq 0 of a new term one above every term it has seen, with a
 *       majority write. The coordinator serves only after that write was confirmed.
 *   <li>Each event is stored as the whole state after it, as the next seq of that term.
 * </ol>
 *
 * <p>A record confirmed by a majority is seen by every later majority read, which overlaps that
 * majority. Hence a successor's read sees the take-over of every coordinator that served before
 * it, and the successor's term is greater than all of theirs. A write that timed out after reaching
 * only some nodes (a <em>stray</em>) carries its writer's term, so when gossip later spreads it,
 * it loses against every record of the successor and cannot overwrite what the successor stored.
 * A retried write gets a new seq, so an earlier attempt that arrives late loses too.
 *
 * <p>A successor whose read happens to include a stray loads it: the state after one more event
 * the predecessor decided but never announced (the coordinator applies an event only once it is
 * stored). That is the same as a predecessor that crashed right after a confirmed write, which the
 * coordinator handles anyway.
 *
 * <p>Two take-overs can share a term only if the first never served: its take-over write timed
 * out, and the second coordinator's read did not include it. Both are seq 0; the one whose basis
 * is greater wins, so the state never falls behind the one the serving coordinator took over
 * from. (If this race happened twice in a row, which needs three coordinator moves each meeting a
 * timed-out write, the tie between two equal bases falls to the writer and the serving
 * coordinator's take-over could lose to an equally old sibling. Regions still report the shards
 * they host when they register, so a new coordinator learns those homes either way.)
 *
 * <p>All of this assumes that replicas of a confirmed record outlive the nodes that confirmed it
 * until gossip has copied it on: the state lives in memory only, and a majority of the nodes
 * leaving faster than gossip runs (every 2 s by default) can lose the latest writes.
 */
public final class CoordinatorStateRecord extends AbstractReplicatedData<CoordinatorStateRecord>
    implements Comparable<CoordinatorStateRecord> {

  /**
   * Where a record stands: the coordinator's term, the seq of the write within the term, and the
   * store instance that wrote it. A writer never uses a (term, seq) twice, so a version names
   * exactly one record.
   */
  public record Version(long term, long seq, String writer) implements Comparable<Version> {
    /** The basis of a take-over that found nothing stored. */
    public static final Version NONE = new Version(0, 0, "");

    private static final Comparator<Version> ORDER = Comparator.comparingLong(Version::term)
        .thenComparingLong(Version::seq).thenComparing(Version::writer);

    /**
     * @throws IllegalArgumentException if term or seq is negative or writer is null
     */
    public Version {
      if (term < 0 || seq < 0 || writer == null) {
        throw new IllegalArgumentException("A version needs a term and seq >= 0 and a writer, got term " + term
            + ", seq " + seq + ", writer " + writer);
      }
    }

    @Override
    public int compareTo(Version other) {
      return ORDER.compare(this, other);
    }

    /**
     * The order of two records (or heads) written at {@code version} from {@code basis}: by term,
     * then seq, then basis, then writer (see the class comment for why the basis comes before
     * the writer).
     */
    static int compareRecords(Version version, Version basis, Version otherVersion, Version otherBasis) {
      int c = Long.compare(version.term(), otherVersion.term());
      if (c == 0) {
        c = Long.compare(version.seq(), otherVersion.seq());
      }
      if (c == 0) {
        c = basis.compareTo(otherBasis);
      }
      if (c == 0) {
        c = version.writer().compareTo(otherVersion.writer());
      }
      return c;
    }

    @Override
    public String toString() {
      return term + "." + seq + (writer.isEmpty() ? "" : " by " + writer);
    }
  }

  private final Version version;
  private final Version basis;
  private final CoordinatorState state;

  /**
   * @throws IllegalArgumentException if an argument is null
   */
  public CoordinatorStateRecord(Version version, Version basis, CoordinatorState state) {
    if (version == null || basis == null || state == null) {
      throw new IllegalArgumentException("A coordinator state record needs a version, a basis and a state");
    }
    this.version = version;
    this.basis = basis;
    this.state = state;
  }

  /**
   * The record a coordinator writes to take over: the loaded state (empty if nothing was stored),
   * as seq 0 of a term above both the loaded one and {@code lastTermUsed}, so that a take-over
   * tried again never reuses a term.
   */
  public static CoordinatorStateRecord takeOver(Optional<CoordinatorStateRecord> loaded, long lastTermUsed,
      String writer) {
    long seen = loaded.map(r -> r.version.term()).orElse(0L);
    Version version = new Version(Math.max(seen, lastTermUsed) + 1, 0, writer);
    return new CoordinatorStateRecord(version, loaded.map(r -> r.version).orElse(Version.NONE),
        loaded.map(r -> r.state).orElse(CoordinatorState.empty()));
  }

  /**
   * The record that stores {@code next} after this one, by the same writer in the same term.
   *
   * @throws IllegalArgumentException unless {@code seq} is greater than this record's
   */
  public CoordinatorStateRecord followedBy(long seq, CoordinatorState next) {
    if (seq <= version.seq()) {
      throw new IllegalArgumentException("seq " + seq + " does not follow " + version);
    }
    return new CoordinatorStateRecord(new Version(version.term(), seq, version.writer()), version, next);
  }

  public Version version() {
    return version;
  }

  /** The version this record's state was derived from. */
  public Version basis() {
    return basis;
  }

  public CoordinatorState state() {
    return state;
  }

  @Override
  public CoordinatorStateRecord mergeData(CoordinatorStateRecord that) {
    return compareTo(that) >= 0 ? this : that;
  }

  @Override
  public int compareTo(CoordinatorStateRecord other) {
    return Version.compareRecords(version, basis, other.version, other.basis);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CoordinatorStateRecord other && version.equals(other.version) && basis.equals(other.basis)
        && state.equals(other.state);
  }

  @Override
  public int hashCode() {
    return Objects.hash(version, basis);
  }

  @Override
  public String toString() {
    return "CoordinatorStateRecord(" + version + ", from " + basis + ", " + state + ")";
  }
}
