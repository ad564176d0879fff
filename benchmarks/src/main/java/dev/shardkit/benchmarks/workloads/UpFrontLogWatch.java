package dev.shardkit.benchmarks.workloads;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.spi.FilterReply;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * What the up-front placement workload reads from one JVM's log: when each region on it had been
 * told the homes of every shard (the region's debug line for each {@code ShardHomes} message, let
 * through on its own so no other debug logging runs), and the warnings about heartbeats (Pekko's
 * failure detector warns "heartbeat interval is growing too large", the cluster "Scheduled sending
 * of heartbeat was delayed") on every actor system of the JVM.
 */
final class UpFrontLogWatch extends AppenderBase<ILoggingEvent> {
  /** The start of shardkit's region line; its arguments: region path, told, term, learned, here. */
  static final String TOLD_LINE = "Region {} was told {} home(s) placed up front";

  /** Per region path: homes it learned in other regions plus those placed in it, and when it reached each sum. */
  private final Map<String, long[]> known = new ConcurrentHashMap<>();
  private final Queue<Long> heartbeatWarnings = new ConcurrentLinkedQueue<>();

  private UpFrontLogWatch() {}

  /** Watches this JVM's log from now on. */
  static UpFrontLogWatch install() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    TurboFilter toldLines = new TurboFilter() {
      @Override
      public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params,
          Throwable t) {
        return level == Level.DEBUG && format != null && format.startsWith(TOLD_LINE) ? FilterReply.ACCEPT
            : FilterReply.NEUTRAL;
      }
    };
    toldLines.setContext(context);
    toldLines.start();
    context.addTurboFilter(toldLines);
    UpFrontLogWatch watch = new UpFrontLogWatch();
    watch.setContext(context);
    watch.start();
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(watch);
    return watch;
  }

  @Override
  protected void append(ILoggingEvent event) {
    if (event.getLevel().isGreaterOrEqual(Level.WARN)
        && event.getFormattedMessage().toLowerCase(Locale.ROOT).contains("heartbeat")) {
      heartbeatWarnings.add(WallClock.micros());
    } else if (event.getMessage() != null && event.getMessage().startsWith(TOLD_LINE)) {
      Object[] args = event.getArgumentArray();
      long now = WallClock.micros();
      long homes = ((Number) args[3]).longValue() + ((Number) args[4]).longValue();
      known.merge(String.valueOf(args[0]), new long[] {homes, now}, (a, b) -> new long[] {a[0] + b[0], b[1]});
    }
  }

  /**
   * The regions of {@code regionName} (the actor's name) that know the homes of at least
   * {@code shards} shards, and when the last of them came to know them.
   */
  Known known(String regionName, int shards) {
    int regions = 0;
    long last = 0;
    for (Map.Entry<String, long[]> e : known.entrySet()) {
      if (e.getKey().endsWith("/" + regionName) && e.getValue()[0] >= shards) {
        regions++;
        last = Math.max(last, e.getValue()[1]);
      }
    }
    return new Known(regions, last);
  }

  /** How many regions know every home, and since when the last of them does ({@link WallClock#micros}). */
  record Known(int regions, long lastMicros) {
    String line() {
      return regions + " " + lastMicros;
    }

    static Known parse(String line) {
      String[] p = line.trim().split(" ");
      return new Known(Integer.parseInt(p[0]), Long.parseLong(p[1]));
    }
  }

  /** Heartbeat warnings logged between the two moments ({@link WallClock#micros}). */
  long heartbeatWarnings(long fromMicros, long toMicros) {
    return heartbeatWarnings.stream().filter(t -> t >= fromMicros && t <= toMicros).count();
  }
}
