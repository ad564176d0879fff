package dev.shardkit.benchmarks.workloads;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.LoggerFactory;

/**
 * The warnings about heartbeats in one JVM's log (Pekko's failure detector warns "heartbeat
 * interval is growing too large", the cluster "Scheduled sending of heartbeat was delayed"), on
 * every actor system of the JVM: the up-front placement workload counts them. (What regions were
 * told, it learns from sharding's telemetry: {@link UpFrontTelemetry}.)
 */
final class UpFrontLogWatch extends AppenderBase<ILoggingEvent> {
  private final Queue<Long> heartbeatWarnings = new ConcurrentLinkedQueue<>();

  private UpFrontLogWatch() {}

  /** Watches this JVM's log from now on. */
  static UpFrontLogWatch install() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
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
    }
  }

  /** Heartbeat warnings logged between the two moments ({@link WallClock#micros}). */
  long heartbeatWarnings(long fromMicros, long toMicros) {
    return heartbeatWarnings.stream().filter(t -> t >= fromMicros && t <= toMicros).count();
  }
}
