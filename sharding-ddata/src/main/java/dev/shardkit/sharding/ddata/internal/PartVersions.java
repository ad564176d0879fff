package dev.shardkit.sharding.ddata.internal;

import dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord.Version;
import java.util.Arrays;

/**
 * Which record of each part a {@link CoordinatorStateHead} names: part 0 is the directory
 * (regions and proxies), parts 1..n the shard parts. Every part a head names was written by that
 * head's writer in that head's term (a take-over rewrites every part), so a term, a writer and one
 * seq per part identify them. Immutable.
 */
public final class PartVersions {
  private final long term;
  private final String writer;
  private final long[] seqs;

  /**
   * @param seqs the seq of each part's record, the directory's first
   * @throws IllegalArgumentException if term or a seq is negative, writer is null, or there is no
   *     shard part (fewer than 2 seqs)
   */
  public PartVersions(long term, String writer, long[] seqs) {
    if (term < 0 || writer == null || seqs == null || seqs.length < 2) {
      throw new IllegalArgumentException("Part versions need a term >= 0, a writer and the seqs of the directory "
          + "and at least one shard part, got term " + term + ", writer " + writer + ", seqs "
          + Arrays.toString(seqs));
    }
    for (long seq : seqs) {
      if (seq < 0) {
        throw new IllegalArgumentException("A part's seq must be >= 0, got " + Arrays.toString(seqs));
      }
    }
    this.term = term;
    this.writer = writer;
    this.seqs = seqs.clone();
  }

  /** Every part (directory and {@code shardParts} shard parts) at {@code version}: what a take-over writes. */
  public static PartVersions all(Version version, int shardParts) {
    long[] seqs = new long[shardParts + 1];
    Arrays.fill(seqs, version.seq());
    return new PartVersions(version.term(), version.writer(), seqs);
  }

  /**
   * These versions with the parts in {@code written} now at {@code version} (of this term and
   * writer) and {@code shardParts} shard parts; parts beyond the old count must be in
   * {@code written}.
   *
   * @throws IllegalArgumentException if {@code version} is of another term or writer, or a new
   *     part is not written
   */
  public PartVersions with(Version version, int shardParts, java.util.Set<Integer> written) {
    if (version.term() != term || !version.writer().equals(writer)) {
      throw new IllegalArgumentException("Version " + version + " is not of term " + term + " by " + writer);
    }
    long[] next = new long[shardParts + 1];
    for (int i = 0; i < next.length; i++) {
      if (written.contains(i)) {
        next[i] = version.seq();
      } else if (i < seqs.length) {
        next[i] = seqs[i];
      } else {
        throw new IllegalArgumentException("Part " + i + " is new but was not written");
      }
    }
    return new PartVersions(term, writer, next);
  }

  public long term() {
    return term;
  }

  public String writer() {
    return writer;
  }

  /** The number of shard parts (the directory not counted). */
  public int shardParts() {
    return seqs.length - 1;
  }

  /** The version of part {@code index} (0 is the directory). */
  public Version version(int index) {
    return new Version(term, seqs[index], writer);
  }

  /** Every seq, the directory's first; a copy. */
  public long[] seqs() {
    return seqs.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartVersions other && term == other.term && writer.equals(other.writer)
        && Arrays.equals(seqs, other.seqs);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(term) * 31 + Arrays.hashCode(seqs);
  }

  @Override
  public String toString() {
    return "parts of term " + term + " by " + writer + " at " + Arrays.toString(seqs);
  }
}
