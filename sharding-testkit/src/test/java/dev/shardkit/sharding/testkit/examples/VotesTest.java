package dev.shardkit.sharding.testkit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.shardkit.sharding.testkit.TestEntityRef;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Votes, with its counters replaced by a probe: no sharding, no cluster. */
class VotesTest {
  static final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void aVoteIncrementsTheOptionsCounter() {
    TestProbe<Counter.Command> probe = testKit.createTestProbe();
    List<String> counters = new CopyOnWriteArrayList<>();
    Votes votes = new Votes(id -> {
      counters.add(id);
      return TestEntityRef.of(Counter.KEY, id, probe.ref(), testKit.system());
    });

    votes.vote("yes");

    probe.expectMessage(new Counter.Increment(1));
    assertEquals(List.of("votes-yes"), counters);
  }

  @Test
  void aCountIsWhatTheCounterAnswers() throws Exception {
    TestProbe<Counter.Command> probe = testKit.createTestProbe();
    Votes votes = new Votes(id -> TestEntityRef.of(Counter.KEY, id, probe.ref(), testKit.system()));

    CompletableFuture<Integer> count = votes.count("no").toCompletableFuture();

    // The probe gets the Get that the ask built; the test answers for the counter.
    Counter.Get get = probe.expectMessageClass(Counter.Get.class);
    get.replyTo().tell(7);
    assertEquals(7, count.get(5, TimeUnit.SECONDS));
  }
}
