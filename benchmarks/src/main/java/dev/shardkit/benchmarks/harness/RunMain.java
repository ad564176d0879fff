package dev.shardkit.benchmarks.harness;

import dev.shardkit.benchmarks.workloads.Workloads;
import java.util.Arrays;
import java.util.Map;

/**
 * The entry point of a child JVM: runs one {@link RunSpec} and prints its {@code RESULT} line (or
 * an {@code ERROR} line) on stdout, then exits, whatever threads are left.
 */
public final class RunMain {
  private RunMain() {}

  public static void main(String[] args) {
    int code = 0;
    try {
      RunSpec spec = RunSpec.fromArgs(Arrays.asList(args));
      Map<String, Double> values = Workloads.byId(spec.workload()).run(spec);
      System.out.println(RunResult.resultLine(values));
    } catch (Throwable e) {
      e.printStackTrace();
      System.out.println("ERROR " + String.valueOf(e).replace('\n', ' '));
      code = 1;
    }
    stopRecordings();
    System.out.flush();
    System.err.flush();
    // Actor systems of a finished run are not worth waiting for.
    Runtime.getRuntime().halt(code);
  }

  /** Writes a flight recording started on the command line (halt skips the JVM's own dump). */
  private static void stopRecordings() {
    if (jdk.jfr.FlightRecorder.isInitialized()) {
      for (jdk.jfr.Recording r : jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings()) {
        try {
          r.stop();
        } catch (RuntimeException e) {
          System.err.println("could not stop flight recording " + r.getName() + ": " + e);
        }
      }
    }
  }
}
