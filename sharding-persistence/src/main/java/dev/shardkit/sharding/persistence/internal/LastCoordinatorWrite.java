package dev.shardkit.sharding.persistence.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The last event an entity type's coordinator wrote that the journal still holds, as
 * {@code RemoveShardingData} judges by it whether that coordinator may still be running. The
 * latest event is never deleted (only events older than {@code keep-nr-of-batches} batches behind
 * the latest snapshot are), so it is the coordinator's last write. Immutable.
 *
 * @param sequenceNr the event's sequence number
 * @param writtenAt when the journal wrote it, by the clock the journal took it from (with
 *     pekko-persistence-jdbc: the writing node's JVM clock, kept in {@code write_timestamp});
 *     empty if the journal keeps no write time
 * @param node the address of the node whose coordinator took over last at or before it (every
 *     later write of an earlier coordinator is refused, so that node wrote it), from that
 *     take-over's event or a later keep-alive of its coordinator or, once those are deleted
 *     behind a snapshot, from the latest snapshot; empty if none names it (written by a shardkit
 *     that stored no node)
 */
public record LastCoordinatorWrite(long sequenceNr, Optional<Instant> writtenAt, Optional<String> node) {

  /**
   * One event of the coordinator's persistence id as the read journal gives it.
   *
   * @param timestamp the journal's write time in epoch milliseconds, 0 if it keeps none
   * @param event the stored payload ({@link StoredEvent}, or {@link StoredEventsBatch} for a write of many
   *     events)
   */
  public record Written(long sequenceNr, long timestamp, Object event) {}

  /**
   * The last of {@code events}, with the node of the last take-over or keep-alive among them, else
   * the node the latest snapshot names (the snapshot follows the take-overs before it, so with
   * none left among the events its node is the last one's).
   *
   * @param events a coordinator's events in sequence-number order
   * @param snapshotNode the node of the latest snapshot, empty if there is none or it names none
   * @return empty if there are no events (nothing is stored)
   */
  public static Optional<LastCoordinatorWrite> of(List<Written> events, Optional<String> snapshotNode) {
    if (events.isEmpty()) {
      return Optional.empty();
    }
    Written last = events.get(events.size() - 1);
    Optional<String> node = snapshotNode;
    for (Written w : events) {
      if (w.event() instanceof StoredEvent e && e.kind() == StoredEvent.Kind.TAKEN_OVER) {
        node = Optional.ofNullable(e.node());
      } else if (w.event() instanceof StoredEvent e && e.kind() == StoredEvent.Kind.KEPT_ALIVE && e.node() != null) {
        node = Optional.of(e.node());
      }
    }
    Optional<Instant> at = last.timestamp() > 0 ? Optional.of(Instant.ofEpochMilli(last.timestamp()))
        : Optional.empty();
    return Optional.of(new LastCoordinatorWrite(last.sequenceNr(), at, node));
  }

  /**
   * Whether the coordinator has been quiet for at least {@code quietPeriod} at {@code now}. Not
   * when the write time is unknown, nor when it lies ahead of {@code now} (the clocks disagree):
   * neither shows that the coordinator stopped.
   */
  public boolean quietFor(Duration quietPeriod, Instant now) {
    return writtenAt.map(at -> !at.isAfter(now) && Duration.between(at, now).compareTo(quietPeriod) >= 0)
        .orElse(false);
  }

  /** For the tool's output, e.g. {@code "at 2026-11-24T06:59:01.123Z (12 s ago), by node pekko://...; event #7"}. */
  public String describe(Instant now) {
    String when = writtenAt.map(at -> "at " + at + " (" + ago(at, now) + ")")
        .orElse("at an unknown time (the journal keeps no write times)");
    String by = node.map(n -> "by node " + n)
        .orElse("by an unknown node (neither its take-over event nor a snapshot names it)");
    return when + ", " + by + "; event #" + sequenceNr;
  }

  private static String ago(Instant at, Instant now) {
    if (at.isAfter(now)) {
      return Duration.between(now, at).toMillis() + " ms ahead of this machine's clock";
    }
    Duration age = Duration.between(at, now);
    return age.toSeconds() < 120 ? age.toMillis() / 1000.0 + " s ago" : age.toMinutes() + " min ago";
  }
}
