package dev.shardkit.sharding.testsupport;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.slf4j.LoggerFactory;

/** Collects every log event while open, so a test can wait for the one it expects. */
public final class LogCapture extends AppenderBase<ILoggingEvent> implements AutoCloseable {
  private final List<ILoggingEvent> events = new CopyOnWriteArrayList<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

  public LogCapture() {
    setContext(root.getLoggerContext());
    start();
    root.addAppender(this);
  }

  @Override
  protected void append(ILoggingEvent event) {
    event.prepareForDeferredProcessing();
    events.add(event);
  }

  /** The event's message and, if any, the messages of its exception chain. */
  public static String fullText(ILoggingEvent e) {
    StringBuilder sb = new StringBuilder(e.getFormattedMessage());
    for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) {
      sb.append(" | ").append(t.getClassName()).append(": ").append(t.getMessage());
    }
    return sb.toString();
  }

  /** Waits for an event whose full text contains every one of {@code parts}. */
  public ILoggingEvent await(Duration max, String... parts) {
    awaitCount(max, 1, parts);
    return matching(parts).get(0);
  }

  /** Waits until at least {@code n} events contain every one of {@code parts}. */
  public void awaitCount(Duration max, int n, String... parts) {
    TestCluster.await(max, () -> matching(parts).size() >= n,
        n + " log event(s) containing " + List.of(parts) + " (seen " + matching(parts).size() + ")");
  }

  /** The events so far whose full text contains every one of {@code parts}. */
  public List<ILoggingEvent> matching(String... parts) {
    Predicate<ILoggingEvent> matches = e -> {
      String text = fullText(e);
      for (String p : parts) {
        if (!text.contains(p)) {
          return false;
        }
      }
      return true;
    };
    return events.stream().filter(matches).toList();
  }

  public List<ILoggingEvent> events() {
    return List.copyOf(events);
  }

  @Override
  public void close() {
    root.detachAppender(this);
    stop();
  }
}
