package dev.shardkit.sharding.ddata.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.pekko.actor.Address;
import org.apache.pekko.cluster.UniqueAddress;
import org.apache.pekko.cluster.ddata.ORSet;
import org.apache.pekko.cluster.ddata.ORSetKey;
import org.apache.pekko.cluster.ddata.SelfUniqueAddress;
import org.junit.jupiter.api.Test;

/** The keys of a shard's remembered entities, and how a batch is split over them: without actors. */
class ShardEntitiesKeysTest {
  private static final SelfUniqueAddress NODE_A = node(1);
  private static final SelfUniqueAddress NODE_B = node(2);

  private static SelfUniqueAddress node(int n) {
    return new SelfUniqueAddress(new UniqueAddress(new Address("pekko", "Test", "10.0.0." + n, 25520), n));
  }

  private static Set<String> ids(String prefix, int n) {
    return IntStream.range(0, n).mapToObj(i -> prefix + i).collect(Collectors.toSet());
  }

  private static void assertRejected(Runnable call, String... expectedInMessage) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
    for (String part : expectedInMessage) {
      assertTrue(e.getMessage().contains(part), "message [" + e.getMessage() + "] should contain [" + part + "]");
    }
  }

  @Test
  void aShardHasFiveKeysNamedAfterItsTypeAndId() {
    List<String> ids = ShardEntitiesKeys.of("Cart", "17").all().stream().map(ORSetKey::id).toList();
    assertEquals(List.of("shardkit-entities-Cart/17/0", "shardkit-entities-Cart/17/1", "shardkit-entities-Cart/17/2",
        "shardkit-entities-Cart/17/3", "shardkit-entities-Cart/17/4"), ids);
    // The durable pattern covers them, and the coordinator state's pattern does not.
    assertTrue(ids.stream().allMatch(id -> id.startsWith(ShardEntitiesKeys.PREFIX)));
    assertTrue(ids.stream().noneMatch(id -> id.startsWith(CoordinatorStateKey.PREFIX)));
  }

  @Test
  void twoShardsNeverShareAKey() {
    // With '-' as the only separator, these would all be "shardkit-entities-a-b-c-...".
    Set<String> seen = new HashSet<>();
    for (String[] typeAndShard : new String[][] {{"a-b", "c"}, {"a", "b-c"}, {"a", "b/c"}, {"a/b", "c"},
        {"a", "b c"}, {"a", "b+c"}, {"a", "b%2Fc"}, {"a", "bé"}}) {
      for (ORSetKey<String> key : ShardEntitiesKeys.of(typeAndShard[0], typeAndShard[1]).all()) {
        assertTrue(seen.add(key.id()), "key " + key.id() + " is shared");
      }
    }
    assertEquals("shardkit-entities-a/b%2Fc/0", ShardEntitiesKeys.of("a", "b/c").all().get(0).id());
  }

  @Test
  void anEntityAlwaysFallsInTheSameKeyAndIdsSpreadOverAllKeys() {
    ShardEntitiesKeys keys = ShardEntitiesKeys.of("Cart", "3");
    // String.hashCode is specified, so this holds on every JVM: "e1".hashCode() = 3180, 3180 % 5 = 0.
    assertEquals("shardkit-entities-Cart/3/0", keys.keyOf("e1").id());
    assertEquals(keys.keyOf("order-42"), ShardEntitiesKeys.of("Cart", "3").keyOf("order-42"));
    Set<ORSetKey<String>> used = ids("e", 100).stream().map(keys::keyOf).collect(Collectors.toSet());
    assertEquals(Set.copyOf(keys.all()), used);
    // Negative hash codes land in a key too.
    assertTrue("polygenelubricants".hashCode() < 0);
    assertTrue(keys.all().contains(keys.keyOf("polygenelubricants")));
  }

  @Test
  void aBatchIsSplitIntoOneChangePerKeyItTouches() {
    ShardEntitiesKeys keys = ShardEntitiesKeys.of("Cart", "3");
    Set<String> started = ids("s", 40);
    Set<String> stopped = ids("t", 10);
    List<BucketChange> changes = keys.changes(started, stopped);

    assertEquals(5, changes.size());
    assertEquals(keys.all(), changes.stream().map(BucketChange::key).toList());
    Set<String> allStarted = new HashSet<>();
    Set<String> allStopped = new HashSet<>();
    for (BucketChange c : changes) {
      c.started().forEach(id -> assertEquals(c.key(), keys.keyOf(id)));
      c.stopped().forEach(id -> assertEquals(c.key(), keys.keyOf(id)));
      allStarted.addAll(c.started());
      allStopped.addAll(c.stopped());
    }
    assertEquals(started, allStarted);
    assertEquals(stopped, allStopped);

    // Ids of one key make one change; nothing makes none.
    Set<String> sameKey = ids("e", 50).stream().filter(id -> keys.keyOf(id).equals(keys.keyOf("e1")))
        .collect(Collectors.toSet());
    assertTrue(sameKey.size() > 1);
    List<BucketChange> one = keys.changes(sameKey, Set.of());
    assertEquals(1, one.size());
    assertEquals(new BucketChange(keys.keyOf("e1"), sameKey, Set.of()), one.get(0));
    assertEquals(List.of(), keys.changes(Set.of(), Set.of()));
  }

  @Test
  void aChangeAddsAndRemovesIdsAndLaterChangesFromAnotherNodeWin() {
    ORSetKey<String> key = new ORSetKey<>("k");
    ORSet<String> set = new BucketChange(key, Set.of("a", "b", "c"), Set.of()).applyTo(ORSet.create(), NODE_A);
    assertEquals(Set.of("a", "b", "c"), set.getElements());
    set = new BucketChange(key, Set.of("d"), Set.of("a", "x")).applyTo(set, NODE_A);
    assertEquals(Set.of("b", "c", "d"), set.getElements());

    // A successor on another node, after reading the set, removes what its predecessor added.
    ORSet<String> successor = new BucketChange(key, Set.of("e"), Set.of("b")).applyTo(set, NODE_B);
    assertEquals(Set.of("c", "d", "e"), successor.getElements());
    // A replica that still holds the predecessor's set converges on the successor's.
    assertEquals(successor.getElements(), set.merge(successor).getElements());
    assertEquals(successor.getElements(), successor.merge(set).getElements());
  }

  @Test
  void badNamesAndBatchesAreRejectedSayingWhatIsWrong() {
    assertRejected(() -> ShardEntitiesKeys.of("", "1"), "type name", "empty");
    assertRejected(() -> ShardEntitiesKeys.of("Cart", ""), "Entity type [Cart]", "shard id", "empty");
    assertRejected(() -> ShardEntitiesKeys.of("Cart", null), "Entity type [Cart]", "shard id");
    String longShard = "x".repeat(500);
    assertRejected(() -> ShardEntitiesKeys.of("Cart", longShard), "Entity type [Cart], shard [" + longShard + "]",
        "525 bytes", "at most 511", "shorter shard ids");
    // Encoding counts: 160 'é' are 160 chars but 960 bytes once URL-encoded.
    assertRejected(() -> ShardEntitiesKeys.of("Cart", "é".repeat(160)), "at most 511");
    ShardEntitiesKeys.of("Cart", "x".repeat(486)); // 18 + 4 + 1 + 486 + 2 = 511 bytes: the longest accepted

    ShardEntitiesKeys keys = ShardEntitiesKeys.of("Cart", "1");
    assertRejected(() -> keys.changes(Set.of("a", "b"), Set.of("b")), "[b]", "both started and stopped");
    assertRejected(() -> keys.changes(null, Set.of()), "started", "stopped");
    Set<String> withNull = new HashSet<>();
    withNull.add(null);
    assertRejected(() -> keys.changes(Set.of(), withNull), "null entity id", "stopped");
  }

  @Test
  void keysOfDifferentShardsDiffer() {
    assertNotEquals(ShardEntitiesKeys.of("Cart", "1").all(), ShardEntitiesKeys.of("Cart", "2").all());
    assertEquals("shardkit-entities-Cart/1/{0..4}", ShardEntitiesKeys.of("Cart", "1").toString());
  }
}
