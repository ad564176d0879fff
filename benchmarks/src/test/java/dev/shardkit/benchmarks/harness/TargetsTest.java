package dev.shardkit.benchmarks.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TargetsTest {
  private static Targets.Outcome outcome(List<Row> rows, List<Report.Micro> micro, String figure) {
    return Targets.judge(Targets.issue17(), rows, micro).stream().filter(o -> o.figure().equals(figure))
        .findFirst().orElseThrow();
  }

  private static Row firstMessage(String mode, String p, double shardkit, double pekko) {
    return Row.compare("First message to a new shard, " + mode, p + " latency", "ms", 1, Row.Better.LOWER,
        Map.of(1, shardkit), Map.of(1, pekko), Double.NaN);
  }

  @Test
  void everyRowOfATargetMustMeetItAndTheRowsOwnTargetDoesNotCount() {
    String figure = "first message to a never-used shard, p50 and p99, both store modes";
    List<Row> met = List.of(firstMessage("ddata", "p50", 1, 4), firstMessage("ddata", "p99", 1, 4),
        firstMessage("persistence", "p50", 1, 4), firstMessage("persistence", "p99", 1, 4));
    assertEquals(Row.Verdict.MET, outcome(met, List.of(), figure).verdict());
    List<Row> oneMissed = List.of(firstMessage("ddata", "p50", 1, 4), firstMessage("ddata", "p99", 1, 2));
    Targets.Outcome o = outcome(oneMissed, List.of(), figure);
    assertEquals(Row.Verdict.NOT_MET, o.verdict());
    assertTrue(o.measured().contains("0.50×"), o.measured());
  }

  @Test
  void theFirstMessageTargetJudgesTheDefaultsNotTheRowsWithHomesAskedFor() {
    String figure = "first message to a never-used shard, p50 and p99, both store modes";
    Row askedFor = Row.compare("First message to a new shard, ddata", "p50 latency, homes asked for", "ms", 1,
        Row.Better.LOWER, Map.of(1, 3.0), Map.of(1, 4.0), Double.NaN);
    List<Row> rows = List.of(firstMessage("ddata", "p50", 1, 4), firstMessage("ddata", "p99", 1, 4), askedFor);
    Targets.Outcome o = outcome(rows, List.of(), figure);
    assertEquals(Row.Verdict.MET, o.verdict(), o.toString());
    assertTrue(!o.measured().contains("0.75×"), "the other setting's row is not judged: " + o.measured());
  }

  @Test
  void latencyAgainstPekkoWhileShardsMoveIsJudgedOnTheMovingShardsMessagesOfJoinAndLeave() {
    String figure = "p99 of messages to a moving shard, shardkit / Pekko (join and leave)";
    Row windowJoin = Row.compare("Latency while shards move", "p99 during a join", "ms", 1, Row.Better.LOWER,
        Map.of(1, 9.0), Map.of(1, 10.0), Double.NaN);
    Row movingJoin = Row.compare("Latency while shards move", "p99 of messages to a moving shard, during a join",
        "ms", 1, Row.Better.LOWER, Map.of(1, 2.0), Map.of(1, 10.0), 0.25);
    Row movingLeave = Row.compare("Latency while shards move",
        "p99 of messages to a moving shard, during a graceful leave", "ms", 1, Row.Better.LOWER, Map.of(1, 3.0),
        Map.of(1, 10.0), 0.25);
    Targets.Outcome missedLeave = outcome(List.of(windowJoin, movingJoin, movingLeave), List.of(), figure);
    assertEquals(Row.Verdict.NOT_MET, missedLeave.verdict(), missedLeave.toString());
    assertTrue(missedLeave.measured().contains("0.20×") && missedLeave.measured().contains("0.30×")
        && !missedLeave.measured().contains("0.90×"), "the window's p99 is not judged: " + missedLeave.measured());
    Row fastLeave = Row.compare("Latency while shards move",
        "p99 of messages to a moving shard, during a graceful leave", "ms", 1, Row.Better.LOWER, Map.of(1, 1.0),
        Map.of(1, 10.0), 0.25);
    assertEquals(Row.Verdict.MET, outcome(List.of(windowJoin, movingJoin, fastLeave), List.of(), figure).verdict());
  }

  @Test
  void aTargetWithoutItsRowsIsNotMeasuredNeverMet() {
    Targets.Outcome o = outcome(List.of(), List.of(), "remember-entities recovery, persistence mode");
    assertEquals(Row.Verdict.NO_DATA, o.verdict());
    assertEquals("not measured in this run", o.measured());
  }

  @Test
  void higherIsBetterTargetsNeedTheBoundOrMore() {
    Row tell = Row.compare("Local routed throughput", "`EntityRef.tell`", "M msg/s", 3, Row.Better.HIGHER,
        Map.of(1, 2.9), Map.of(1, 1.0), 2.5);
    assertEquals(Row.Verdict.NOT_MET, outcome(List.of(tell), List.of(), "local `EntityRef.tell`").verdict(),
        "2.9× meets the row's old 2.5× but not the issue's 3×");
    Row fast = Row.compare("Local routed throughput", "`EntityRef.tell`", "M msg/s", 3, Row.Better.HIGHER,
        Map.of(1, 3.5), Map.of(1, 1.0), 3.0);
    Row percent = Row.absolute("Local routed throughput", "`EntityRef.tell` as % of plain tell", "%", 0,
        Map.of(1, 40.0), Map.of(1, 20.0), "shardkit ≥ 60 %", false);
    Targets.Outcome o = outcome(List.of(fast, percent), List.of(), "local `EntityRef.tell`");
    assertEquals(Row.Verdict.MET, o.verdict(), "the percentage row belongs to its own target: " + o);
    assertEquals("3.50×", o.measured());
  }

  @Test
  void jmhScoresAreConvertedToMicrosecondsAndEveryMatchingBenchmarkCounts() {
    String event = "one coordinator event applied, 100 000 shards × 1 000 regions (JMH)";
    List<Report.Micro> fast = List.of(new Report.Micro("CoordinatorStateBenchmark.shardHomeAllocated", "9 500.1 ± 3.0",
        "ns/op"), new Report.Micro("CoordinatorStateBenchmark.regionRegistered", "2.000", "us/op"));
    assertEquals(Row.Verdict.MET, outcome(List.of(), fast, event).verdict());
    List<Report.Micro> slow = List.of(new Report.Micro("CoordinatorStateBenchmark.shardHomeAllocated", "10 500.0",
        "ns/op"));
    assertEquals(Row.Verdict.NOT_MET, outcome(List.of(), slow, event).verdict());
    String routing = "one home change in the routing table, 10 000 shards (JMH)";
    List<Report.Micro> routingTable = List.of(new Report.Micro("RoutingTableBenchmark.withOneHomeChanged",
        "190 605.696 ± 150 980.580", "ns/op"));
    Targets.Outcome o = outcome(List.of(), routingTable, routing);
    assertEquals(Row.Verdict.NOT_MET, o.verdict());
    assertEquals("190.606 µs", o.measured());
  }

  @Test
  void aParameterizedBenchmarkIsJudgedOnlyAtTheSizeTheTargetNames() {
    String routing = "one home change in the routing table, 10 000 shards (JMH)";
    List<Report.Micro> scores = List.of(
        new Report.Micro("RoutingTableBenchmark.withOneHomeChanged [shards=10000]", "4.000", "us/op"),
        new Report.Micro("RoutingTableBenchmark.withOneHomeChanged [shards=100000]", "40.000", "us/op"));
    Targets.Outcome o = outcome(List.of(), scores, routing);
    assertEquals(Row.Verdict.MET, o.verdict());
    assertEquals("4.000 µs", o.measured());
  }
}
