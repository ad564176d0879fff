package dev.shardkit.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** Facts about the machine a suite ran on, for the report. */
public final class MachineInfo {
  private MachineInfo() {}

  /** Name → value: CPU, cores, memory, JVM, OS, load average now. */
  public static Map<String, String> describe() {
    Map<String, String> facts = new LinkedHashMap<>();
    facts.put("CPU", cpuModel().orElse(System.getProperty("os.arch")));
    facts.put("cores available to the JVM", Integer.toString(Runtime.getRuntime().availableProcessors()));
    memTotal().ifPresent(m -> facts.put("memory", m));
    facts.put("JVM", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
    facts.put("OS", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    return facts;
  }

  /** The 1-, 5- and 15-minute load averages, or empty where the OS does not tell. */
  public static Optional<String> loadAverage() {
    return read("/proc/loadavg").map(s -> {
      String[] f = s.trim().split("\\s+");
      return f.length >= 3 ? f[0] + " " + f[1] + " " + f[2] : s.trim();
    });
  }

  private static Optional<String> cpuModel() {
    return read("/proc/cpuinfo").flatMap(s -> s.lines().filter(l -> l.startsWith("model name"))
        .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst());
  }

  private static Optional<String> memTotal() {
    return read("/proc/meminfo").flatMap(s -> s.lines().filter(l -> l.startsWith("MemTotal:")).findFirst())
        .map(l -> {
          long kb = Long.parseLong(l.replaceAll("[^0-9]", ""));
          return String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
        });
  }

  private static Optional<String> read(String file) {
    try {
      return Optional.of(Files.readString(Path.of(file)));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
