package dev.shardkit.benchmarks.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.shardkit.benchmarks.workloads.ObservedMoves.Arrival;
import dev.shardkit.benchmarks.workloads.ObservedMoves.Move;
import java.util.List;
import org.junit.jupiter.api.Test;

class ObservedMovesTest {
  private static Arrival at(int node, int sender, long sent, long received) {
    return new Arrival(sent, received, sender, 7, node);
  }

  @Test
  void aShardThatStaysOnItsNodeNeverMoved() {
    assertEquals(List.of(), ObservedMoves.of(List.of(at(0, 0, 0, 1), at(0, 1, 5, 6), at(0, 2, 10, 12))));
  }

  @Test
  void theMessagesHeldByAMoveAreThoseSentBeforeTheNewHomesFirstCountAndEachSendersFirstThere() {
    Arrival lastAtOld = at(0, 1, 100, 102);
    Arrival heldLong = at(1, 0, 110, 190);
    Arrival heldToo = at(1, 2, 150, 191);
    Arrival inFlight = at(1, 1, 189, 192);
    Arrival afterFirstOfSender = at(1, 0, 200, 201);
    Arrival firstOfLateSender = at(1, 3, 250, 251);
    Arrival later = at(1, 2, 300, 301);
    // Given in an order other than the entity's, as arrivals of several entities interleave.
    List<Move> moves = ObservedMoves.of(List.of(later, heldToo, at(0, 0, 50, 51), firstOfLateSender, lastAtOld,
        afterFirstOfSender, heldLong, inFlight));
    assertEquals(1, moves.size(), moves.toString());
    Move m = moves.get(0);
    assertEquals(0, m.from());
    assertEquals(1, m.to());
    assertEquals(7, m.entity());
    assertEquals(100, m.begin(), "a move begins with the send of the latest message the old home counted");
    assertEquals(190, m.end(), "and ends when the new home counts its first message");
    assertEquals(List.of(heldLong, heldToo, inFlight, firstOfLateSender), m.held());
  }

  @Test
  void aMessageSentBeforeTheLatestCountedAtTheOldHomeButCountedAtTheNewOneWasHeldToo() {
    Arrival slowFromAfar = at(1, 2, 90, 140);
    List<Move> moves = ObservedMoves.of(List.of(at(0, 0, 100, 101), slowFromAfar, at(1, 0, 150, 151)));
    assertEquals(List.of(slowFromAfar, at(1, 0, 150, 151)), moves.get(0).held());
  }

  @Test
  void aShardThatMovesTwiceGivesTwoMovesEachBegunAtItsOwnOldHome() {
    List<Move> moves = ObservedMoves.of(List.of(at(0, 0, 10, 11), at(3, 0, 20, 25), at(3, 0, 30, 31),
        at(2, 0, 40, 45)));
    assertEquals(2, moves.size(), moves.toString());
    assertEquals(List.of(0, 3), moves.stream().map(Move::from).toList());
    assertEquals(List.of(3, 2), moves.stream().map(Move::to).toList());
    assertEquals(List.of(10L, 30L), moves.stream().map(Move::begin).toList());
    assertEquals(List.of(at(2, 0, 40, 45)), moves.get(1).held());
  }

  @Test
  void aMessageCountedBeforeItWasSentIsRejected() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ObservedMoves.of(List.of(at(0, 0, 10, 9))));
    assertEquals(true, e.getMessage().contains("counted before it was sent"), e.getMessage());
  }
}
