package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.telemetry.TelemetryEvents;
import java.util.Arrays;
import java.util.Objects;
import org.slf4j.event.Level;
import org.slf4j.helpers.MessageFormatter;

/**
 * Something the {@link RegionMachine} has to say, as a value: an SLF4J pattern with its arguments,
 * logged by the region's shell at {@link #level()} and formatted only if that level is on (a
 * {@code Throwable} as the last argument is logged as the cause, as SLF4J does). The patterns are
 * the region's log lines as they were before it became a machine (see {@code RegionNoticeTextTest}).
 * Those with a {@link Fact} are also reported as telemetry ({@link TelemetryEvents#region}).
 *
 * <p>One factory per kind of notice, so that each pattern is written once.
 */
@InternalApi
public record RegionNotice(Level level, Fact fact, String pattern, Object... args) {

  /**
   * What a notice says, with typed fields, for the notices telemetry reports
   * ({@link TelemetryEvents#region}); null for the others.
   */
  public sealed interface Fact {}

  /** The shard hosted here began its hand-off. */
  public record HandOffBegun(String shardId) implements Fact {}

  /** The shard hosted here stopped for its hand-off, {@code took} after it began; {@code held} messages wait here. */
  public record HandedOff(String shardId, java.time.Duration took, int held) implements Fact {}

  /** Messages held for a shard go to its home now. */
  public record Released(String shardId, int messages) implements Fact {}

  /** The homes placed up front were told. */
  public record ToldUpFront(String region, int told, long term, int learned, int placedHere) implements Fact {}

  /** The region shut down gracefully. */
  public record ShutDown() implements Fact {}

  RegionNotice(Level level, String pattern, Object... args) {
    this(level, null, pattern, args);
  }

  /** The line as logged. */
  String render() {
    return MessageFormatter.arrayFormat(pattern, args).getMessage();
  }

  @Override
  public String toString() {
    return level + " " + render();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RegionNotice n && level == n.level && Objects.equals(fact, n.fact) && pattern.equals(n.pattern)
        && Arrays.equals(args, n.args);
  }

  @Override
  public int hashCode() {
    return 31 * pattern.hashCode() + Arrays.hashCode(args);
  }

  static RegionNotice handlerFailed(String typeName, String what, Exception cause) {
    return new RegionNotice(Level.ERROR,
        "Entity type [{}]: region failed handling {} ({}); it drops that message and keeps routing", typeName, what,
        cause.toString(), cause);
  }

  public static RegionNotice shuttingDown(String typeName, int shards) {
    return new RegionNotice(Level.INFO, "Entity type [{}]: region shutting down; handing off {} shard(s)", typeName,
        shards);
  }

  static RegionNotice shutDown(String typeName) {
    return new RegionNotice(Level.INFO, new ShutDown(), "Entity type [{}]: region shut down gracefully", typeName);
  }

  static RegionNotice registered(String typeName, Object coordinator, long term) {
    return new RegionNotice(Level.DEBUG, "Entity type [{}]: registered with coordinator {} at term {}", typeName,
        coordinator, term);
  }

  static RegionNotice refusedAtTerm(String typeName, Object message, long term, Object coordinator, long current) {
    return new RegionNotice(Level.WARN, "Entity type [{}]: ignoring {} at coordinator term {}: this region acts only on "
        + "its current coordinator {} at term {} (further messages at term {} are ignored without a warning)",
        typeName, message, term, coordinator, current, term);
  }

  static RegionNotice coordinatorGone(String typeName, Object coordinator) {
    return new RegionNotice(Level.INFO, "Entity type [{}]: coordinator {} is gone; registering with its successor",
        typeName, coordinator);
  }

  static RegionNotice notSerializable(String typeName, String className, String entityId, Object address,
      String problem) {
    return new RegionNotice(Level.ERROR, "Entity type [{}]: cannot send a message of class [{}] to entity [{}] on {}: {}",
        typeName, className, entityId, address, problem);
  }

  static RegionNotice ignoringHome(String typeName, Object home, String why) {
    return new RegionNotice(Level.DEBUG, "Entity type [{}]: ignoring {}: {}", typeName, home, why);
  }

  static RegionNotice cannotHost(String typeName, String shardId) {
    return new RegionNotice(Level.ERROR,
        "Entity type [{}]: the coordinator placed shard [{}] in a proxy-only region; ignoring it", typeName, shardId);
  }

  static RegionNotice hostedHereAlready(String typeName, String shardId, Object named) {
    return new RegionNotice(Level.ERROR, "Entity type [{}]: the coordinator says shard [{}] lives in {}, but it is "
        + "hosted here; keeping it here", typeName, shardId, named);
  }

  /** Reported as telemetry: the benchmarks see with it when every region knows the homes placed up front. */
  static RegionNotice toldUpFront(String region, int told, long term, int learned, int placedHere) {
    return new RegionNotice(Level.DEBUG, new ToldUpFront(region, told, term, learned, placedHere),
        "Region {} was told {} home(s) placed up front at term {}: it learned {} in other regions and {} here", region,
        told, term, learned, placedHere);
  }

  static RegionNotice stoppedUnexpectedly(String typeName, String shardId, String when) {
    return new RegionNotice(Level.WARN, "Entity type [{}]: shard [{}] stopped unexpectedly; it starts again {}",
        typeName, shardId, when);
  }

  static RegionNotice marker(String typeName, String shardId, Object fromPath) {
    return new RegionNotice(Level.DEBUG, "Entity type [{}]: hand-off marker for shard [{}] from {}", typeName, shardId,
        fromPath);
  }

  static RegionNotice routesClosed(String typeName, String shardId) {
    return new RegionNotice(Level.DEBUG,
        "Entity type [{}]: every route to shard [{}] is closed; stopping its entities", typeName, shardId);
  }

  static RegionNotice handOffBegun(String typeName, String shardId) {
    return new RegionNotice(Level.DEBUG, new HandOffBegun(shardId), "Entity type [{}]: shard [{}] begins its hand-off",
        typeName, shardId);
  }

  public static RegionNotice handedOff(String typeName, String shardId, java.time.Duration took, int held) {
    return new RegionNotice(Level.DEBUG, new HandedOff(shardId, took, held), "Entity type [{}]: shard [{}] handed off",
        typeName, shardId);
  }

  static RegionNotice released(String typeName, String shardId, int messages) {
    return new RegionNotice(Level.DEBUG, new Released(shardId, messages),
        "Entity type [{}]: sending the {} message(s) held for shard [{}] to its home", typeName, messages, shardId);
  }

  static RegionNotice handedBack(String typeName, int messages, int shards, Object region) {
    return new RegionNotice(Level.INFO,
        "Entity type [{}]: {} message(s) for {} shard(s) of region {} go to their next homes", typeName, messages,
        shards, region);
  }

  static RegionNotice regionGone(String typeName, Object region, int shards) {
    return new RegionNotice(Level.INFO,
        "Entity type [{}]: region {} is gone; {} shard(s) will get a new home when next used", typeName, region,
        shards);
  }

  static RegionNotice node(String typeName, Object node, String report) {
    return new RegionNotice(Level.INFO, "Entity type [{}]: node {} is {}", typeName, node, report);
  }

  static RegionNotice outOfCluster(String typeName, int shards, int held) {
    return new RegionNotice(Level.WARN, "Entity type [{}]: this node is no longer a member of the cluster; the region "
        + "stops with its {} shard(s), without hand-off, and drops the {} message(s) it holds", typeName, shards,
        held);
  }

  static RegionNotice ignoresUnexpected(String typeName, Object message) {
    return new RegionNotice(Level.DEBUG, "Entity type [{}]: region ignores unexpected {}", typeName, message);
  }

  public static RegionNotice goneWithoutAcknowledging(String typeName, Object region, int messages) {
    return new RegionNotice(Level.WARN, "Entity type [{}]: region {} is gone without acknowledging {} message(s); they "
        + "may have been lost with it (shardkit.sharding.remote-delivery.redeliver-unacknowledged-after-crash = on "
        + "sends such messages to the shards' new homes)", typeName, region, messages);
  }

  public static RegionNotice batchWaits(String typeName, long seq, Object link) {
    return new RegionNotice(Level.DEBUG,
        "Entity type [{}]: batch {} from {} waits until this node is confirmed a member", typeName, seq, link);
  }

  public static RegionNotice batchGap(String typeName, long seq, Object link, long missing) {
    return new RegionNotice(Level.DEBUG, "Entity type [{}]: batch {} from {} arrived before batch {}; asking for it "
        + "again", typeName, seq, link, missing);
  }
}
