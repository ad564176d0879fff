package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class OverflowEpisodeTest {
  private final OverflowEpisode overflow = new OverflowEpisode();

  @Test
  void onlyTheFirstRefusalOfAnEpisodeWarnsAndEveryOneIsCounted() {
    assertEquals(0, overflow.roomAgain(), "no episode was going on");
    assertTrue(overflow.refused());
    assertFalse(overflow.refused());
    assertFalse(overflow.refused());
    assertEquals(3, overflow.roomAgain());
    assertTrue(overflow.refused(), "the next episode warns again");
    assertEquals(4, overflow.total());
    assertEquals(1, overflow.roomAgain());
    assertEquals(0, overflow.roomAgain());
  }
}
