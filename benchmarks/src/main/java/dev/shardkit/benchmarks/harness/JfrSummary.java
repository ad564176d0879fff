package dev.shardkit.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a run's CPU time went, from a JDK Flight Recorder file: the methods most often on top of
 * the sampled stacks (self) and anywhere in them (total), per kind of thread (the sender, the
 * dispatcher, remoting, ...). Also a main: {@code JfrSummary file.jfr [top]}.
 */
public final class JfrSummary {
  private JfrSummary() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 1) {
      System.err.println("usage: JfrSummary recording.jfr [top]");
      System.exit(2);
    }
    System.out.print(summarize(Path.of(args[0]), args.length > 1 ? Integer.parseInt(args[1]) : 25));
  }

  /** The summary as text. */
  public static String summarize(Path jfr, int top) throws IOException {
    Map<String, Map<String, Integer>> self = new TreeMap<>();
    Map<String, Map<String, Integer>> total = new TreeMap<>();
    Map<String, Integer> samples = new TreeMap<>();
    for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) {
        continue;
      }
      String group = threadGroup(e.getThread("sampledThread") == null ? "?" : e.getThread("sampledThread").getJavaName());
      samples.merge(group, 1, Integer::sum);
      List<RecordedFrame> frames = e.getStackTrace().getFrames();
      if (frames.isEmpty()) {
        continue;
      }
      self.computeIfAbsent(group, g -> new HashMap<>()).merge(name(frames.get(0)), 1, Integer::sum);
      Set<String> seen = new HashSet<>();
      for (RecordedFrame f : frames) {
        if (seen.add(name(f))) {
          total.computeIfAbsent(group, g -> new HashMap<>()).merge(name(f), 1, Integer::sum);
        }
      }
    }
    StringBuilder sb = new StringBuilder();
    samples.forEach((group, n) -> {
      sb.append(String.format(Locale.ROOT, "== %s: %d samples%n-- self%n", group, n));
      append(sb, self.get(group), n, top);
      sb.append("-- total (on the stack)\n");
      append(sb, total.get(group), n, top);
    });
    return sb.toString();
  }

  /** Writes {@code <jfr>.txt} beside the recording, if there is one. */
  public static void writeBeside(Path jfr, int top) throws IOException {
    if (Files.exists(jfr)) {
      Files.writeString(jfr.resolveSibling(jfr.getFileName() + ".txt"), summarize(jfr, top));
    }
  }

  private static void append(StringBuilder sb, Map<String, Integer> counts, int n, int top) {
    if (counts == null) {
      return;
    }
    List<Map.Entry<String, Integer>> sorted = new ArrayList<>(counts.entrySet());
    sorted.sort((a, b) -> b.getValue() - a.getValue());
    for (var e : sorted.subList(0, Math.min(top, sorted.size()))) {
      sb.append(String.format(Locale.ROOT, "%6.1f %%  %s%n", 100.0 * e.getValue() / n, e.getKey()));
    }
  }

  private static String name(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  /** Thread names without their numbers: "Bench-pekko.actor.default-dispatcher-5" → "...dispatcher". */
  private static String threadGroup(String thread) {
    return thread.replaceAll("-?\\d+$", "");
  }
}
