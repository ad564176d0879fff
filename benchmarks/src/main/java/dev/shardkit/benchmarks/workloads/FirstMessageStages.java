package dev.shardkit.benchmarks.workloads;

import dev.shardkit.benchmarks.harness.Stats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Where a first message's time goes, seen from outside the library and by the same rule for both:
 * the entity notes (through its {@link Counter.Hook}) when its setup ran and when the asked message
 * reached it, and the asker when it sent and when the answer came back, all on one
 * {@link System#nanoTime()} clock (the nodes share a JVM). A sample then splits into
 * <em>to the entity's start</em> (routing, the home's look-up or allocation, the hop to the home,
 * the shard's and the entity's start), <em>start to message</em>, and <em>the answer</em> (the
 * entity's reply to the asker, which is Pekko's own tell for both libraries), apart for samples
 * whose entity lives on the asker's node and those on another node.
 *
 * <p>Written to the run's log, so that a slow percentile can be read against its stages; it feeds no
 * row of the report.
 */
final class FirstMessageStages {

  /** What one entity noted: when its setup ran, when the asked message reached it, and where. */
  private record Stamp(long startedNanos, long askedNanos, boolean onAskersNode) {
    Stamp asked(long nanos) {
      return new Stamp(startedNanos, nanos, onAskersNode);
    }
  }

  /** One counted sample, in milliseconds. */
  record Sample(double total, double toStart, double startToMessage, double answer, boolean local) {}

  private final LongSupplier clock;
  private final Map<String, Stamp> stamps = new ConcurrentHashMap<>();
  private final List<Sample> samples = new ArrayList<>();
  private int unstamped;

  FirstMessageStages() {
    this(System::nanoTime);
  }

  /** @param clock the clock the asker's times come from too */
  FirstMessageStages(LongSupplier clock) {
    this.clock = clock;
  }

  /** The hook for the entities of one node; {@code askersNode} says whether the asker runs there. */
  Counter.Hook hook(boolean askersNode) {
    return new Counter.Hook() {
      @Override
      public void added(String entityId, Counter.Add add, long count) {}

      @Override
      public void started(String entityId) {
        stamps.put(entityId, new Stamp(clock.getAsLong(), 0, askersNode));
      }

      @Override
      public void asked(String entityId) {
        long now = clock.getAsLong();
        stamps.computeIfPresent(entityId, (id, s) -> s.askedNanos() == 0 ? s.asked(now) : s);
      }
    };
  }

  /**
   * Notes a counted sample: the entity asked, when the ask was sent and when its answer arrived. A
   * sample whose entity noted nothing (a start this run did not see) is counted apart, not guessed.
   */
  void sample(String entityId, long sentNanos, long answeredNanos) {
    Stamp s = stamps.get(entityId);
    if (s == null || s.askedNanos() == 0) {
      unstamped++;
      return;
    }
    samples.add(new Sample(millis(answeredNanos - sentNanos), millis(s.startedNanos() - sentNanos),
        millis(s.askedNanos() - s.startedNanos()), millis(answeredNanos - s.askedNanos()), s.onAskersNode()));
  }

  List<Sample> samples() {
    return List.copyOf(samples);
  }

  /** The breakdown as lines: per placement of the entity (all, asker's node, another node). */
  String summary() {
    StringBuilder out = new StringBuilder("first-message stages (ms; p50 / p90 / p99)\n");
    for (Map.Entry<String, Predicate<Sample>> group : List.<Map.Entry<String, Predicate<Sample>>>of(
        Map.entry("all", s -> true), Map.entry("entity on the asker's node", Sample::local),
        Map.entry("entity on another node", s -> !s.local()))) {
      List<Sample> in = samples.stream().filter(group.getValue()).toList();
      out.append(String.format(Locale.ROOT, "  %s: %d samples", group.getKey(), in.size()));
      if (!in.isEmpty()) {
        out.append(stage(in, "total", Sample::total)).append(stage(in, "to the entity's start", Sample::toStart))
            .append(stage(in, "start to message", Sample::startToMessage)).append(stage(in, "answer", Sample::answer));
      }
      out.append('\n');
    }
    if (unstamped > 0) {
      out.append("  samples whose entity noted no start or no asked message: ").append(unstamped).append('\n');
    }
    return out.toString();
  }

  private static String stage(List<Sample> in, String name, ToDoubleFunction<Sample> value) {
    double[] v = in.stream().mapToDouble(value).toArray();
    return String.format(Locale.ROOT, "; %s %.2f / %.2f / %.2f", name, Stats.percentile(v, 50),
        Stats.percentile(v, 90), Stats.percentile(v, 99));
  }

  private static double millis(long nanos) {
    return nanos / 1e6;
  }
}
