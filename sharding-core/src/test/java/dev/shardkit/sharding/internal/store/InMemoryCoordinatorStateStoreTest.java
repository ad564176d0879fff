package dev.shardkit.sharding.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The memory store keeps nothing, and its terms grow as the coordinator moves to younger members. */
class InMemoryCoordinatorStateStoreTest {

  @Test
  void aYoungerMembersTermIsGreaterHoweverManyLoadsTheOlderMade() {
    assertTrue(InMemoryCoordinatorStateStore.term(2, 1) > InMemoryCoordinatorStateStore.term(1, 0xFFFF_FFFFL));
    assertTrue(InMemoryCoordinatorStateStore.term(1, 2) > InMemoryCoordinatorStateStore.term(1, 1));
  }

  @Test
  void everyLoadIsEmptyWithAGreaterTermThanTheOneBefore() {
    AtomicInteger upNumber = new AtomicInteger(3);
    InMemoryCoordinatorStateStore store = new InMemoryCoordinatorStateStore(upNumber::get);
    LoadedCoordinatorState first = store.load().toCompletableFuture().join();
    LoadedCoordinatorState again = store.load().toCompletableFuture().join();
    upNumber.set(4);
    LoadedCoordinatorState moved = new InMemoryCoordinatorStateStore(upNumber::get).load().toCompletableFuture().join();
    assertEquals(CoordinatorState.empty(), first.state());
    assertTrue(again.term() > first.term(), first + " then " + again);
    assertTrue(moved.term() > again.term(), again + " then " + moved);
  }

  @Test
  void aMemberThatIsNotUpGetsNoTerm() {
    for (int notUp : new int[] {0, Integer.MAX_VALUE}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> InMemoryCoordinatorStateStore.term(notUp, 1));
      assertTrue(e.getMessage().contains("upNumber is " + notUp), e.getMessage());
    }
  }
}
