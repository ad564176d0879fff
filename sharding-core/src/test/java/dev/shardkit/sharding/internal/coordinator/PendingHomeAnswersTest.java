package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.coordinator.PendingHomeAnswers.Admission;
import dev.shardkit.sharding.internal.coordinator.PendingHomeAnswers.Answer;
import dev.shardkit.sharding.internal.coordinator.PendingHomeAnswers.Answered;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Answers waiting for their homes to be stored, with regions and homes as plain names. */
class PendingHomeAnswersTest {
  private final PendingHomeAnswers<String> pending = new PendingHomeAnswers<>(4);
  /** What the store holds, per shard; a shard missing here is not stored (or changed since). */
  private final Map<String, String> stored = new HashMap<>();
  /** The shards with a home decided. */
  private final Map<String, String> decided = new HashMap<>();

  private Answered<String> answer() {
    return pending.answer(stored::get, decided::containsKey);
  }

  @Test
  void aRegionAskingAgainAndAgainWaitsOnceAndIsAnsweredOnce() {
    decided.put("s1", "home");
    assertEquals(Admission.QUEUED_FIRST, pending.add("s1", "r1"), "the first one is due an answering");
    for (int i = 0; i < 1000; i++) {
      assertEquals(Admission.ALREADY_QUEUED, pending.add("s1", "r1"));
    }
    assertEquals(Admission.QUEUED, pending.add("s1", "r2"), "another region waits beside it");
    assertEquals(2, pending.size(), "one per (shard, region), however often they ask");

    stored.put("s1", "home");
    Answered<String> answered = answer();
    assertEquals(List.of(new Answer<>("s1", "r1", "home"), new Answer<>("s1", "r2", "home")), answered.answers());
    assertFalse(answered.again());
    assertEquals(0, pending.size());
    assertEquals(Admission.QUEUED_FIRST, pending.add("s1", "r1"), "asked again later, it waits again");
  }

  @Test
  void aRequestWhoseHomeIsNotStoredYetWaitsForALaterWrite() {
    decided.put("s1", "home");
    decided.put("s2", "home");
    pending.add("s1", "r1");
    assertEquals(Admission.QUEUED, pending.add("s2", "r1"));
    stored.put("s1", "home");

    Answered<String> first = answer();
    assertEquals(List.of(new Answer<>("s1", "r1", "home")), first.answers());
    assertTrue(first.again(), "s2 waits for the write that holds its home");
    assertEquals(1, pending.size());
    assertEquals(Admission.QUEUED, pending.add("s3", "r1"), "an answering is due already");

    stored.put("s2", "home");
    decided.put("s3", "other");
    stored.put("s3", "other");
    assertEquals(2, answer().answers().size());
    assertEquals(0, pending.size());
  }

  @Test
  void aRequestForAShardThatLostItsHomeIsForgotten() {
    decided.put("s1", "gone");
    pending.add("s1", "r1");
    decided.remove("s1");
    Answered<String> answered = answer();
    assertEquals(List.of(), answered.answers(), "the region asks again and the shard is placed anew");
    assertFalse(answered.again());
    assertEquals(0, pending.size());
  }

  @Test
  void beyondTheLimitRequestsAreRefusedCountedAndWarnedAboutOncePerEpisode() {
    for (int i = 0; i < 4; i++) {
      decided.put("s" + i, "home");
      pending.add("s" + i, "r1");
    }
    assertEquals(Admission.REFUSED_FIRST, pending.add("s4", "r1"));
    assertEquals(Admission.REFUSED, pending.add("s4", "r1"));
    assertEquals(Admission.REFUSED, pending.add("s5", "r2"));
    assertEquals(Admission.ALREADY_QUEUED, pending.add("s0", "r1"), "one that waits is not refused");
    assertEquals(4, pending.size());
    assertEquals(3, pending.refused());

    stored.put("s0", "home");
    Answered<String> answered = answer();
    assertEquals(3, answered.refusedInEpisode(), "the episode is over: there is room again");
    decided.put("s4", "home");
    pending.add("s4", "r1");
    assertEquals(Admission.REFUSED_FIRST, pending.add("s5", "r1"), "a new episode warns again");
    assertEquals(4, pending.refused());
  }

  @Test
  void theLimitMustBePositive() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new PendingHomeAnswers<>(0));
    assertTrue(e.getMessage().contains("at least 1, got 0"), e.getMessage());
  }
}
