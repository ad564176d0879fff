package dev.shardkit.sharding.ddata.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord.Version;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The split state's heads and parts as replicas hold them, without actors: a replica is the merge
 * of what it received. Checks the order, and that a load finds a state that was stored as a whole
 * after partial writes, strays and a deposed writer.
 */
class CoordinatorStateHeadTest {
  private static final String A = "node-a#1/1";
  private static final String B = "node-b#2/1";

  /** Replicas of the parts, by index: each the merge of the records written to it. */
  private final Map<Integer, CoordinatorStatePart> parts = new HashMap<>();

  private void write(int index, CoordinatorStatePart part) {
    parts.merge(index, part, CoordinatorStatePart::mergeData);
  }

  private static byte[] content(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  private String loaded(CoordinatorStateHead head) {
    PartVersions whole = head.wholeParts(i -> Optional.ofNullable(parts.get(i))).orElseThrow();
    StringBuilder s = new StringBuilder();
    for (int i = 0; i <= whole.shardParts(); i++) {
      s.append(new String(parts.get(i).payloadAt(whole.version(i)).orElseThrow(),
          java.nio.charset.StandardCharsets.UTF_8)).append(i < whole.shardParts() ? "|" : "");
    }
    return s + " @" + head.versionOf(whole);
  }

  private static Version v(long term, long seq, String writer) {
    return new Version(term, seq, writer);
  }

  /** A's take-over as term 1 over nothing: every part at 1.0; returns its head. */
  private CoordinatorStateHead takeOverA() {
    Version t = v(1, 0, A);
    write(0, new CoordinatorStatePart(t, content("dir0"), null, null));
    write(1, new CoordinatorStatePart(t, content("p1-0"), null, null));
    write(2, new CoordinatorStatePart(t, content("p2-0"), null, null));
    return new CoordinatorStateHead(t, Version.NONE, PartVersions.all(t, 2), null);
  }

  @Test
  void aWriteRewritesOnlyTheTouchedPartAndTheHeadNamesTheRest() {
    CoordinatorStateHead h0 = takeOverA();
    Version s1 = v(1, 1, A);
    write(2, new CoordinatorStatePart(s1, content("p2-1"), h0.parts().version(2), content("p2-0")));
    CoordinatorStateHead h1 = new CoordinatorStateHead(s1, h0.version(), h0.parts().with(s1, 2, Set.of(2)),
        h0.parts());
    assertEquals("dir0|p1-0|p2-1 @1.1 by " + A, loaded(h1));
  }

  @Test
  void aPartWrittenWhoseHeadWasNotLeavesTheConfirmedStateReadable() {
    CoordinatorStateHead h0 = takeOverA();
    // The write of 1.1 reached part 2 but its head never got written: the head read is still h0.
    write(2, new CoordinatorStatePart(v(1, 1, A), content("p2-1"), v(1, 0, A), content("p2-0")));
    assertEquals("dir0|p1-0|p2-0 @1.0 by " + A, loaded(h0));
  }

  @Test
  void aStrayHeadWhosePartsARetryOverwroteFallsBackToItsWritersConfirmedState() {
    CoordinatorStateHead h0 = takeOverA();
    // 1.1's parts were confirmed but its head timed out after reaching one replica (a stray).
    Version s1 = v(1, 1, A);
    write(2, new CoordinatorStatePart(s1, content("p2-1"), v(1, 0, A), content("p2-0")));
    CoordinatorStateHead stray = new CoordinatorStateHead(s1, h0.version(), h0.parts().with(s1, 2, Set.of(2)),
        h0.parts());
    // The retry, 1.2, overwrote part 2 (keeping the confirmed 1.0) and its head timed out too.
    write(2, new CoordinatorStatePart(v(1, 2, A), content("p2-1"), v(1, 0, A), content("p2-0")));
    // A successor whose majority read saw the stray (the greatest head) loads A's confirmed state.
    assertEquals("dir0|p1-0|p2-0 @1.0 by " + A, loaded(stray));
  }

  @Test
  void aDeposedWritersLatePartLosesToTheSuccessorsTakeOver() {
    CoordinatorStateHead h0 = takeOverA();
    // B takes over as term 2 and rewrites every part, each keeping what A's head named.
    Version t2 = v(2, 0, B);
    for (int i = 0; i <= 2; i++) {
      write(i, new CoordinatorStatePart(t2, content("b" + i), h0.parts().version(i), parts.get(i).payload()));
    }
    CoordinatorStateHead hb = new CoordinatorStateHead(t2, h0.version(), PartVersions.all(t2, 2), h0.parts());
    // A, deposed but not knowing it, writes part 1 late.
    write(1, new CoordinatorStatePart(v(1, 7, A), content("late"), v(1, 0, A), content("p1-0")));
    assertEquals("b0|b1|b2 @2.0 by " + B, loaded(hb));
    assertTrue(hb.compareTo(new CoordinatorStateHead(v(1, 7, A), h0.version(), h0.parts().with(v(1, 7, A), 2,
        Set.of(1)), h0.parts())) > 0);
  }

  @Test
  void aTakeOverHeadWithNeitherSetWholeHasNoParts() {
    Version t = v(3, 0, B);
    CoordinatorStateHead fromRecord = new CoordinatorStateHead(t, v(2, 5, A), PartVersions.all(t, 1), null);
    assertEquals(Optional.empty(), fromRecord.wholeParts(i -> Optional.ofNullable(parts.get(i))));
  }

  @Test
  void headsAreOrderedByTermSeqBasisAndWriterAndMergeKeepsTheGreater() {
    Version t = v(2, 0, B);
    CoordinatorStateHead low = new CoordinatorStateHead(v(1, 9, A), Version.NONE, PartVersions.all(v(1, 9, A), 1),
        null);
    CoordinatorStateHead high = new CoordinatorStateHead(t, v(1, 9, A), PartVersions.all(t, 1), null);
    CoordinatorStateHead sameTermOtherBasis = new CoordinatorStateHead(t, v(1, 3, A), PartVersions.all(t, 1), null);
    assertSame(high, low.mergeData(high));
    assertSame(high, high.mergeData(low));
    assertTrue(high.compareTo(sameTermOtherBasis) > 0, "the greater basis wins a tie of term and seq");
  }

  @Test
  void badPartsAndHeadsAreRefusedNamingWhatIsWrong() {
    IllegalArgumentException older = assertThrows(IllegalArgumentException.class,
        () -> new CoordinatorStatePart(v(1, 1, A), content("x"), v(1, 2, A), content("y")));
    assertTrue(older.getMessage().contains("must be older than its version"), older.getMessage());
    IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class,
        () -> new CoordinatorStateHead(v(2, 0, B), Version.NONE, PartVersions.all(v(1, 0, A), 1), null));
    assertTrue(foreign.getMessage().contains("must be of its own term and writer"), foreign.getMessage());
    IllegalArgumentException noShardPart = assertThrows(IllegalArgumentException.class,
        () -> new PartVersions(1, A, new long[] {0}));
    assertTrue(noShardPart.getMessage().contains("at least one shard part"), noShardPart.getMessage());
    IllegalArgumentException newPart = assertThrows(IllegalArgumentException.class,
        () -> PartVersions.all(v(1, 0, A), 1).with(v(1, 1, A), 2, Set.of(1)));
    assertTrue(newPart.getMessage().contains("Part 2 is new but was not written"), newPart.getMessage());
  }
}
