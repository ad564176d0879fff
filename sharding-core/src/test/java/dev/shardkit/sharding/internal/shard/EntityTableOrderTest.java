package dev.shardkit.sharding.internal.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.shardkit.sharding.internal.shard.EntityTable.Next;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Whenever the table hands the shard's machine several entities to act on at once, they come in the
 * order of their ids, never in a hash map's order, so that a run of the machine replays alike in
 * every JVM. Entities are their ids here.
 */
class EntityTableOrderTest {
  private static final long MS = 1_000_000L;

  /** Ids in neither sorted nor hash order: added in reverse, and many, so that hash order differs. */
  private static final List<String> IDS = IntStream.range(0, 40).mapToObj(i -> "entity-" + (39 - i) * 7)
      .collect(Collectors.toList());

  private static List<String> sorted() {
    List<String> sorted = new ArrayList<>(IDS);
    sorted.sort(null);
    return sorted;
  }

  private static EntityTable<String> table(boolean remembering) {
    EntityTable<String> t = new EntityTable<>(100, remembering,
        new RestartBackoff(Duration.ofMillis(100), Duration.ofSeconds(1)), id -> id);
    for (String id : IDS) {
      t.starting(id);
      t.started(id, id);
    }
    return t;
  }

  @Test
  void theIdsAreNotInHashOrder() {
    // Guards the tests below: were hash order sorted order, they could not fail.
    assertNotEquals(sorted(), new ArrayList<>(new HashSet<>(IDS)));
  }

  @Test
  void aHandOffStopsTheEntitiesInTheOrderOfTheirIds() {
    EntityTable<String> t = table(false);
    assertEquals(sorted(), new ArrayList<>(t.handOff().stop().keySet()));
  }

  @Test
  void backOffsThatEndTogetherAreAdmittedInTheOrderOfTheirIds() {
    EntityTable<String> t = table(true);
    for (String id : IDS) {
      assertEquals(Next.BACK_OFF, t.terminated(id, false, 0).next());
    }
    assertEquals(sorted(), t.backoffsEnded(100 * MS));
  }

  @Test
  void aCancelledHandOffRecoversTheEntitiesInTheOrderOfTheirIds() {
    EntityTable<String> t = table(true);
    t.handOff();
    for (String id : IDS) {
      assertEquals(Next.KEEP_FOR_NEXT_HOME, t.terminated(id, false, 0).next());
    }
    assertEquals(sorted(), t.cancelHandOff());
  }
}
