package dev.shardkit.sharding.internal.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.machine.Backoff;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The shard's side of its remember-entities store: one request at a time, retries, and whose answers count. */
class RememberedStoreTest {
  private static final Backoff RETRY = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(5), 2);

  @Test
  void aReadFailsAndIsRetriedLongerEachTimeUntilItSucceeds() {
    RememberedStore s = new RememberedStore(RETRY, 1);
    long first = s.read();
    assertTrue(s.isReading(first));
    assertEquals(Duration.ofMillis(200), s.loadFailed());
    assertFalse(s.isReading(first), "a failed read is over");
    long second = s.read();
    assertNotEquals(first, second);
    assertEquals(Duration.ofMillis(400), s.loadFailed());
    long third = s.read();
    s.loaded();
    assertFalse(s.isReading(third));
    s.read();
    assertEquals(Duration.ofMillis(200), s.loadFailed(), "a success starts the count over");
  }

  @Test
  void oneWriteAtATimeAndOnlyItsAnswerCounts() {
    RememberedStore s = new RememberedStore(RETRY, 1);
    assertNull(s.flush(), "nothing to write");
    assertTrue(s.settled());
    s.started("a");
    RememberedStore.Write w = s.flush();
    assertEquals(Set.of("a"), w.batch().started());
    s.started("b");
    assertNull(s.flush(), "one write in flight");
    assertNull(s.written(w.id() + 1), "the answer to another request");
    assertFalse(s.settled());
    assertEquals(Set.of("a"), s.written(w.id()));
    assertNull(s.written(w.id()), "answered once");
    RememberedStore.Write next = s.flush();
    assertEquals(Set.of("b"), next.batch().started());
    assertEquals(Set.of("b"), s.written(next.id()));
    assertTrue(s.settled());
  }

  @Test
  void aFailedWriteIsWrittenAgainWithWhatCameMeanwhile() {
    RememberedStore s = new RememberedStore(RETRY, 1);
    s.started("a");
    s.stopped("b");
    RememberedStore.Write w = s.flush();
    s.started("c");
    assertNull(s.writeFailed(w.id() + 7), "not the write in flight");
    assertEquals(new RememberedStore.Failure(2, Duration.ofMillis(200)), s.writeFailed(w.id()));
    assertNull(s.writeFailed(w.id()), "answered once");
    RememberedStore.Write retry = s.flush();
    assertEquals(Set.of("a", "c"), retry.batch().started());
    assertEquals(Set.of("b"), retry.batch().stopped());
    assertEquals(new RememberedStore.Failure(3, Duration.ofMillis(400)), s.writeFailed(retry.id()));
  }

  @Test
  void anotherIncarnationsRequestsHaveOtherIds() {
    RememberedStore before = new RememberedStore(RETRY, 1);
    RememberedStore after = new RememberedStore(RETRY, 2);
    long oldRead = before.read();
    before.started("a");
    long oldWrite = before.flush().id();
    long read = after.read();
    after.started("a");
    long write = after.flush().id();
    assertNotEquals(oldRead, read);
    assertFalse(after.isReading(oldRead));
    assertNull(after.written(oldWrite), "the answer to the failed incarnation's write is not this one's");
    assertNotEquals(oldWrite, write);
  }
}
