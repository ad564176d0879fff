package dev.shardkit.sharding.internal.machine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.Nobody$;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class DropReporterTest {
  private static final AtomicInteger loggerCounter = new AtomicInteger();
  private static final Duration INTERVAL = Duration.ofSeconds(10);
  private static final long INTERVAL_NANOS = INTERVAL.toNanos();
  // A real classic ActorRef that needs no actor system.
  private static final ActorRef RECIPIENT = Nobody$.MODULE$;

  private final AtomicLong clock = new AtomicLong();
  private final List<Object> published = new ArrayList<>();
  private Logger log;
  private ch.qos.logback.classic.Logger logbackLogger;
  private ListAppender<ILoggingEvent> appender;

  @BeforeEach
  void captureLog() {
    // A logger of its own per test, so warnings from other tests cannot be counted here.
    log = LoggerFactory.getLogger("dev.shardkit.test.DropReporterTest." + loggerCounter.incrementAndGet());
    logbackLogger = (ch.qos.logback.classic.Logger) log;
    logbackLogger.setLevel(Level.WARN);
    logbackLogger.setAdditive(false);
    appender = new ListAppender<>();
    appender.start();
    logbackLogger.addAppender(appender);
  }

  @AfterEach
  void releaseLog() {
    logbackLogger.detachAppender(appender);
    appender.stop();
  }

  private DropReporter reporter(Duration interval) {
    return new DropReporter(log, "Counter", interval, published::add, clock::get);
  }

  private List<String> warnings() {
    return appender.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Test
  void everyDropPublishesADroppedDeadLetterAndCounts() {
    DropReporter r = reporter(INTERVAL);
    for (int i = 0; i < 25; i++) {
      r.dropped("msg-" + i, "buffer full", RECIPIENT);
      assertEquals(i + 1, r.total());
      assertEquals(i + 1, published.size());
    }
    for (int i = 0; i < 25; i++) {
      Dropped d = assertInstanceOf(Dropped.class, published.get(i));
      assertEquals("msg-" + i, d.message());
      assertTrue(d.reason().contains("Counter"), d.reason());
      assertTrue(d.reason().contains("buffer full"), d.reason());
      assertSame(RECIPIENT, d.recipient());
    }
    // Only the first drop within the interval warned, but every drop was published.
    assertEquals(1, warnings().size());
  }

  @Test
  void firstDropWarnsAndLaterOnesWithinTheIntervalDoNot() {
    DropReporter r = reporter(INTERVAL);
    clock.set(1_000);
    assertTrue(r.dropped("a", "no home", RECIPIENT));
    clock.addAndGet(INTERVAL_NANOS - 1);
    assertFalse(r.dropped("b", "no home", RECIPIENT));
    assertFalse(r.dropped("c", "no home", RECIPIENT));
    assertEquals(1, warnings().size());
  }

  @Test
  void warnsAgainOnceTheIntervalHasPassed() {
    DropReporter r = reporter(INTERVAL);
    clock.set(5_000);
    assertTrue(r.dropped("a", "full", RECIPIENT));
    clock.set(5_000 + INTERVAL_NANOS / 2);
    assertFalse(r.dropped("b", "full", RECIPIENT));
    clock.set(5_000 + INTERVAL_NANOS);
    assertTrue(r.dropped("c", "full", RECIPIENT));
    // The interval restarts at the last warning, not at the first drop.
    clock.set(5_000 + INTERVAL_NANOS + INTERVAL_NANOS - 1);
    assertFalse(r.dropped("d", "full", RECIPIENT));
    clock.set(5_000 + 2 * INTERVAL_NANOS);
    assertTrue(r.dropped("e", "full", RECIPIENT));
    assertEquals(3, warnings().size());
    assertEquals(5, r.total());
  }

  @Test
  void warningReportsDropsSinceTheLastWarningAndInAll() {
    DropReporter r = reporter(INTERVAL);
    r.dropped("a", "buffer full", RECIPIENT);
    r.dropped("b", "buffer full", RECIPIENT);
    r.dropped("c", "buffer full", RECIPIENT);
    clock.addAndGet(INTERVAL_NANOS);
    r.dropped("d", "shard stopping", RECIPIENT);
    List<String> w = warnings();
    assertEquals(2, w.size());
    assertTrue(w.get(0).contains("[Counter]"), w.get(0));
    assertTrue(w.get(0).contains("buffer full"), w.get(0));
    assertTrue(w.get(0).contains("(1 message(s) dropped"), w.get(0));
    assertTrue(w.get(0).contains("1 in all"), w.get(0));
    // Three silent drops since the first warning (b, c, d), four overall.
    assertTrue(w.get(1).contains("shard stopping"), w.get(1));
    assertTrue(w.get(1).contains("(3 message(s) dropped"), w.get(1));
    assertTrue(w.get(1).contains("4 in all"), w.get(1));
  }

  @Test
  void negativeClockReadingsStillWarnFirst() {
    // System.nanoTime may be negative; the first drop must warn whatever the clock says.
    clock.set(Long.MIN_VALUE / 2);
    DropReporter r = reporter(INTERVAL);
    assertTrue(r.dropped("a", "full", RECIPIENT));
    assertFalse(r.dropped("b", "full", RECIPIENT));
    clock.addAndGet(INTERVAL_NANOS);
    assertTrue(r.dropped("c", "full", RECIPIENT));
  }

  @Test
  void zeroIntervalWarnsEveryTime() {
    DropReporter r = reporter(Duration.ZERO);
    assertTrue(r.dropped("a", "full", RECIPIENT));
    assertTrue(r.dropped("b", "full", RECIPIENT));
    assertTrue(r.dropped("c", "full", RECIPIENT));
    assertEquals(3, warnings().size());
  }

  @Test
  void publicConstructorPublishesAndWarnsOnFirstDrop() {
    DropReporter r = new DropReporter(log, "Cart", INTERVAL, published::add);
    assertTrue(r.dropped("x", "full", RECIPIENT));
    assertEquals(1, r.total());
    Dropped d = assertInstanceOf(Dropped.class, published.get(0));
    assertTrue(d.reason().contains("Cart"), d.reason());
    assertEquals(1, warnings().size());
  }

  @Test
  void nullRecipientIsAllowed() {
    DropReporter r = reporter(INTERVAL);
    r.dropped("x", "no recipient", ActorRef.noSender());
    Dropped d = assertInstanceOf(Dropped.class, published.get(0));
    assertEquals("x", d.message());
    assertEquals(1, r.total());
  }

  @Test
  void dropsAfterAWarningAreSummedUpOnceTheIntervalHasPassedEvenIfNoMoreCome() {
    DropReporter r = reporter(INTERVAL);
    assertFalse(r.summarize(), "nothing dropped, nothing to say");
    r.dropped("first", "outbox full", RECIPIENT);
    for (int i = 0; i < 149; i++) {
      r.dropped("more-" + i, "outbox full", RECIPIENT);
    }
    assertEquals(1, warnings().size());
    clock.addAndGet(INTERVAL_NANOS - 1);
    assertFalse(r.summarize(), "not before the interval has passed");
    clock.addAndGet(1);
    assertTrue(r.summarize());
    assertEquals(2, warnings().size());
    assertTrue(warnings().get(1).contains("149 more message(s)") && warnings().get(1).contains("150 in all"),
        warnings().get(1));
    clock.addAndGet(INTERVAL_NANOS * 5);
    assertFalse(r.summarize(), "everything was reported");
  }
}
