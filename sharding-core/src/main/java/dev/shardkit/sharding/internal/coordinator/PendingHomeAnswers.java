package dev.shardkit.sharding.internal.coordinator;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The coordinator's answers to home requests for shards whose home is decided but not yet stored:
 * they wait until the store holds it. Regions ask again every retry interval while they wait, and
 * during a store outage that is every second for as long as it lasts, so each (shard, region) waits
 * here once however often it asks, and at most {@code limit} of them wait at all: the queue is
 * bounded by what is asked for, not by how long the store is away. A refused request costs the
 * region one retry interval; the refusals are counted and warned about once per episode
 * ({@link OverflowEpisode}). Owned by the coordinator actor; not thread-safe.
 *
 * @param <R> what identifies a region
 */
final class PendingHomeAnswers<R> {

  /** What became of a request. */
  enum Admission {
    /** It waits, and nothing is set to answer the waiting ones yet: answer them once the next write is stored. */
    QUEUED_FIRST,
    /** It waits, with the others, for the write that is due to answer them. */
    QUEUED,
    /** The same region asked for the same shard before; it gets one answer. */
    ALREADY_QUEUED,
    /** Refused, the queue being full; the first refusal of its episode: warn. */
    REFUSED_FIRST,
    /** Refused, the queue being full; warned about already. */
    REFUSED
  }

  /** Tell {@code region} that {@code shardId} lives in {@code home}. */
  record Answer<R>(String shardId, R region, R home) {}

  /**
   * What to do after a write was stored.
   *
   * @param answers the answers whose homes the store now holds, to send now
   * @param again some requests still wait for a later write: answer them once it is stored
   * @param refusedInEpisode requests refused while the queue was full, if that is over now; else 0
   */
  record Answered<R>(List<Answer<R>> answers, boolean again, long refusedInEpisode) {
    Answered {
      answers = List.copyOf(answers);
    }
  }

  private final int limit;
  private final Map<String, Set<R>> waiting = new LinkedHashMap<>();
  private final OverflowEpisode overflow = new OverflowEpisode();
  private int size;
  private boolean answerDue;

  /**
   * @param limit how many (shard, region) requests may wait at most
   * @throws IllegalArgumentException if {@code limit} is below 1
   */
  PendingHomeAnswers(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("the limit of pending shard-home answers must be at least 1, got " + limit);
    }
    this.limit = limit;
  }

  /** {@code region} asked for the home of {@code shardId}, which is decided but not stored yet. */
  Admission add(String shardId, R region) {
    Set<R> regions = waiting.get(shardId);
    if (regions != null && regions.contains(region)) {
      return Admission.ALREADY_QUEUED;
    }
    if (size >= limit) {
      return overflow.refused() ? Admission.REFUSED_FIRST : Admission.REFUSED;
    }
    waiting.computeIfAbsent(shardId, k -> new LinkedHashSet<>()).add(region);
    size++;
    if (answerDue) {
      return Admission.QUEUED;
    }
    answerDue = true;
    return Admission.QUEUED_FIRST;
  }

  /**
   * A write is stored: the requests whose shard's home the store now holds are answered; those
   * whose shard has no home any more (its region is gone) are forgotten, their regions ask again;
   * the rest wait for a later write.
   *
   * @param storedHome a shard's home if the store holds it and no newer decision about it waits;
   *     else null
   * @param hasHome whether a home is decided for a shard, stored or not
   */
  Answered<R> answer(Function<String, @Nullable R> storedHome, Predicate<String> hasHome) {
    List<Answer<R>> answers = new ArrayList<>();
    Iterator<Map.Entry<String, Set<R>>> entries = waiting.entrySet().iterator();
    while (entries.hasNext()) {
      Map.Entry<String, Set<R>> entry = entries.next();
      R home = storedHome.apply(entry.getKey());
      if (home != null) {
        entry.getValue().forEach(region -> answers.add(new Answer<>(entry.getKey(), region, home)));
      }
      if (home != null || !hasHome.test(entry.getKey())) {
        size -= entry.getValue().size();
        entries.remove();
      }
    }
    answerDue = !waiting.isEmpty();
    return new Answered<>(answers, answerDue, size < limit ? overflow.roomAgain() : 0);
  }

  /** How many (shard, region) requests wait. */
  int size() {
    return size;
  }

  /** How many requests were refused so far because the queue was full. */
  long refused() {
    return overflow.total();
  }
}
