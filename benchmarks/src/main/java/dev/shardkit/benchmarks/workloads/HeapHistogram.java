package dev.shardkit.benchmarks.workloads;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.management.ObjectName;

/**
 * The JVM's live-object class histogram (the same as {@code jcmd <pid> GC.class_histogram}), and the
 * difference between two of them: where the bytes of a memory run went.
 */
final class HeapHistogram {
  private final Map<String, long[]> byClass;

  private HeapHistogram(Map<String, long[]> byClass) {
    this.byClass = byClass;
  }

  /** Takes a histogram of live objects (it runs a full collection). */
  static HeapHistogram take() throws Exception {
    Object text = ManagementFactory.getPlatformMBeanServer().invoke(
        new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
        new Object[] {new String[0]}, new String[] {String[].class.getName()});
    Map<String, long[]> byClass = new HashMap<>();
    for (String line : text.toString().split("\n")) {
      String[] f = line.trim().split("\\s+");
      // "num: instances bytes class-name [module]"
      if (f.length >= 4 && f[0].endsWith(":")) {
        byClass.merge(f[3], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])},
            (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
      }
    }
    return new HeapHistogram(byClass);
  }

  /** The classes that grew most from {@code before} to this, per entity, as a table. */
  String growthSince(HeapHistogram before, int entities, int top) {
    List<Map.Entry<String, long[]>> grown = new ArrayList<>();
    byClass.forEach((cls, now) -> {
      long[] was = before.byClass.getOrDefault(cls, new long[2]);
      grown.add(Map.entry(cls, new long[] {now[0] - was[0], now[1] - was[1]}));
    });
    grown.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%12s %12s %10s  %s%n", "instances", "bytes",
        "B/entity", "class"));
    long total = 0;
    for (var e : grown) {
      total += e.getValue()[1];
    }
    for (var e : grown.subList(0, Math.min(top, grown.size()))) {
      sb.append(String.format(Locale.ROOT, "%12d %12d %10.1f  %s%n", e.getValue()[0], e.getValue()[1],
          (double) e.getValue()[1] / entities, e.getKey()));
    }
    sb.append(String.format(Locale.ROOT, "total growth %d bytes = %.1f B/entity%n", total, (double) total / entities));
    return sb.toString();
  }
}
