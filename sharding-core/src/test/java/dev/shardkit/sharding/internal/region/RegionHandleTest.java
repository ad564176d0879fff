package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.region.RegionHandle.ViaRegion;
import dev.shardkit.sharding.internal.region.RoutingTable.Local;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.pekko.actor.ActorPath;
import org.apache.pekko.actor.ActorPaths;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The caller-side shortcut and its striped counters: a message the region routes is never
 * overtaken by a shortcut message for its shard, and once the region has published a table
 * without a shard and seen its stripe quiet, no caller sends to the old home any more. Regions
 * and shards are inboxes that only record; no actor runs.
 */
class RegionHandleTest {
  private TestInbox<Object> region;
  private TestInbox<Object> shard;
  private RegionHandle handle;

  @BeforeEach
  void attach() {
    region = TestInbox.create("region");
    shard = TestInbox.create("shard");
    // Only remote homes check serializability; these tests use local homes.
    handle = new RegionHandle(null);
    handle.attach(region.getRef());
  }

  private static Deliver msg(String shardId, int n) {
    return new Deliver("type", shardId, "e" + n, n);
  }

  private static RoutingTable tableWith(String shardId, TestInbox<Object> home) {
    return RoutingTable.empty().withHome(shardId, new Local(home.getRef()));
  }

  /** True if a message pending in the region for {@code pending} keeps {@code other} off the shortcut. */
  private static boolean sharesStripe(String pending, String other) {
    TestInbox<Object> region = TestInbox.create();
    RegionHandle handle = new RegionHandle(null);
    handle.attach(region.getRef());
    handle.viaRegion(msg(pending, 0));
    handle.publish(tableWith(other, TestInbox.create()));
    handle.deliver(msg(other, 1));
    return region.hasMessages();
  }

  @Test
  void aMessageForAShardWithoutAKnownHomeGoesThroughTheRegion() {
    handle.deliver(msg("s1", 1));
    ViaRegion via = assertInstanceOf(ViaRegion.class, region.receiveMessage());
    assertEquals(msg("s1", 1), via.deliver());
    assertFalse(shard.hasMessages());
  }

  @Test
  void aKnownHomeIsReusedOnlyWhileItsTableIsTheOnePublished() {
    TestInbox<Object> next = TestInbox.create("next");
    handle.publish(tableWith("s1", shard));
    RegionHandle.KnownHome known = handle.deliver(msg("s1", 1), null);
    assertEquals(new Local(shard.getRef()), known.home());
    assertTrue(known == handle.deliver(msg("s1", 2), known), "the same table: the home found before is reused");

    // The shard moves: a caller holding the old home must not send by it.
    handle.publish(tableWith("s1", next));
    RegionHandle.KnownHome moved = handle.deliver(msg("s1", 3), known);
    assertEquals(new Local(next.getRef()), moved.home());
    assertEquals(List.of(msg("s1", 1), msg("s1", 2)), shard.getAllReceived());
    assertEquals(msg("s1", 3), next.receiveMessage());

    // Handing off: no home published, so the message goes through the region and nothing is kept.
    handle.publish(RoutingTable.empty());
    assertEquals(null, handle.deliver(msg("s1", 4), moved));
    assertEquals(msg("s1", 4), assertInstanceOf(ViaRegion.class, region.receiveMessage()).deliver());
    assertFalse(next.hasMessages());
  }

  @Test
  void aKnownLocalHomeIsSentToFromTheCallersThread() {
    handle.publish(tableWith("s1", shard));
    handle.deliver(msg("s1", 1));
    assertEquals(msg("s1", 1), shard.receiveMessage());
    assertFalse(region.hasMessages());
  }

  @Test
  void whileAMessageWaitsInTheRegionTheNextOneForItsShardDoesNotTakeTheShortcut() {
    handle.deliver(msg("s1", 1));
    ViaRegion first = (ViaRegion) region.receiveMessage();
    // The region holds the first one, learns the home, sends what it held, then publishes.
    handle.publish(tableWith("s1", shard));
    handle.deliver(msg("s1", 2));
    ViaRegion second = assertInstanceOf(ViaRegion.class, region.receiveMessage(), "it would overtake the first");
    assertFalse(shard.hasMessages());

    handle.routed(first);
    handle.deliver(msg("s1", 3));
    assertTrue(region.hasMessages(), "the second is still pending");
    assertFalse(shard.hasMessages());

    handle.routed(second);
    handle.routed((ViaRegion) region.receiveMessage());
    handle.deliver(msg("s1", 4));
    assertEquals(msg("s1", 4), shard.receiveMessage(), "nothing pending: the shortcut again");
  }

  @Test
  void aPendingMessageKeepsOnlyItsOwnStripeOffTheShortcut() {
    List<String> ids = IntStream.range(0, 1_000).mapToObj(i -> "x" + i).toList();
    String neighbour = ids.stream().filter(id -> sharesStripe("s1", id)).findFirst().orElseThrow();
    String other = ids.stream().filter(id -> !sharesStripe("s1", id)).findFirst().orElseThrow();
    handle.deliver(msg("s1", 1));
    region.receiveMessage();
    handle.publish(RoutingTable.empty().withHome(neighbour, new Local(shard.getRef()))
        .withHome(other, new Local(shard.getRef())));

    handle.deliver(msg(other, 2));
    assertEquals(msg(other, 2), shard.receiveMessage());
    handle.deliver(msg(neighbour, 3));
    assertInstanceOf(ViaRegion.class, region.receiveMessage(), "it shares the stripe of a pending message");
  }

  @Test
  void aCallerCountedInTheShortcutKeepsItsStripeFromBeingQuiet() {
    assertTrue(handle.shortcutsQuiet("s1"));
    assertTrue(handle.allShortcutsQuiet());
    handle.publish(tableWith("s1", shard));
    handle.deliver(msg("s1", 1));
    shard.receiveMessage();
    assertTrue(handle.shortcutsQuiet("s1"), "a caller that has sent is out again");
    assertTrue(handle.allShortcutsQuiet());
  }

  @Test
  void aCallerBetweenReadingTheTableAndSendingKeepsItsStripeFromBeingQuiet() throws Exception {
    CallerHeldInSend oldHome = new CallerHeldInSend();
    handle.publish(RoutingTable.empty().withHome("s1", new Local(oldHome)));
    String otherStripe = IntStream.range(0, 1_000).mapToObj(i -> "x" + i)
        .filter(id -> !sharesStripe("s1", id)).findFirst().orElseThrow();
    Thread caller = new Thread(() -> {
      handle.deliver(msg("s1", 1));
      oldHome.inSend.countDown();
    });
    caller.start();
    oldHome.inSend.await();
    assertEquals(List.of(msg("s1", 1)), oldHome.received, "the caller took the shortcut");

    // The region moves the shard away while the caller is still inside its send.
    handle.publish(RoutingTable.empty());
    assertFalse(handle.shortcutsQuiet("s1"), "the caller may still send to the old home");
    assertFalse(handle.allShortcutsQuiet());
    assertTrue(handle.shortcutsQuiet(otherStripe), "other stripes are not held up");

    oldHome.release.countDown();
    caller.join();
    assertTrue(handle.shortcutsQuiet("s1"));
    assertTrue(handle.allShortcutsQuiet());
    handle.deliver(msg("s1", 2));
    assertInstanceOf(ViaRegion.class, region.receiveMessage(), "the new table has no home for it");
  }

  @Test
  void concurrentCallersGoingThroughTheRegionAreEachCounted() throws Exception {
    int callers = 4;
    int each = 2_000;
    List<ViaRegion> sent = java.util.Collections.synchronizedList(new ArrayList<>());
    runConcurrently(callers, () -> {
      for (int i = 0; i < each; i++) {
        sent.add(handle.viaRegion(msg("s1", i)));
      }
    });
    handle.publish(tableWith("s1", shard));
    for (int i = 0; i < sent.size(); i++) {
      handle.deliver(msg("s1", -1));
      assertInstanceOf(ViaRegion.class, region.receiveMessage(), "still " + (sent.size() - i) + " pending");
      handle.routed(sent.get(i));
      handle.routed(new ViaRegion(msg("s1", -1)));
    }
    handle.deliver(msg("s1", 0));
    assertEquals(msg("s1", 0), shard.receiveMessage());
  }

  @Test
  void onceTheStripeIsQuietAfterATableWithoutTheShardNoCallerSendsToTheOldHome() throws Exception {
    int callers = 3;
    handle.publish(tableWith("s1", shard));
    AtomicInteger sent = new AtomicInteger();
    AtomicBoolean done = new AtomicBoolean();
    int[] toOldHome = new int[1];
    Thread switcher = new Thread(() -> {
      while (sent.get() < 5_000) {
        Thread.onSpinWait();
      }
      // What the region does when a shard is handed off: publish, then wait for quiet.
      handle.publish(RoutingTable.empty());
      while (!handle.shortcutsQuiet("s1")) {
        Thread.onSpinWait();
      }
      toOldHome[0] = count(shard);
      int atQuiet = sent.get();
      while (sent.get() < atQuiet + 5_000) {
        Thread.onSpinWait();
      }
      done.set(true);
    });
    switcher.start();
    runConcurrently(callers, () -> {
      int i = 0;
      while (!done.get()) {
        handle.deliver(msg("s1", i++));
        sent.incrementAndGet();
        if (i % 1_000 == 0) {
          // Leave the switcher room on a busy machine.
          Thread.yield();
        }
      }
    });
    switcher.join();

    assertEquals(0, count(shard), "a caller sent to the old home after its route was declared closed");
    int throughRegion = count(region);
    assertTrue(throughRegion >= 5_000, "callers went on sending after the switch: " + throughRegion);
    assertEquals(sent.get(), toOldHome[0] + throughRegion, "every message went one way or the other");
  }

  /** A shard whose {@code tell} keeps the caller inside it until released. */
  private static final class CallerHeldInSend implements ActorRef<Object> {
    final CountDownLatch inSend = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final List<Object> received = new CopyOnWriteArrayList<>();

    @Override
    public void tell(Object message) {
      received.add(message);
      inSend.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <U> ActorRef<U> narrow() {
      return (ActorRef<U>) this;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <U> ActorRef<U> unsafeUpcast() {
      return (ActorRef<U>) this;
    }

    @Override
    public ActorPath path() {
      return ActorPaths.fromString("pekko://test/user/shard");
    }

    @Override
    public int compareTo(ActorRef<?> other) {
      return path().compareTo(other.path());
    }
  }

  private static int count(TestInbox<Object> inbox) {
    return inbox.getAllReceived().size();
  }

  private static void runConcurrently(int threads, Runnable body) throws Exception {
    CyclicBarrier barrier = new CyclicBarrier(threads);
    List<Thread> running = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < threads; t++) {
      Thread thread = new Thread(() -> {
        try {
          barrier.await();
          body.run();
        } catch (Throwable e) {
          failures.add(e);
        }
      });
      running.add(thread);
      thread.start();
    }
    for (Thread thread : running) {
      thread.join();
    }
    assertEquals(List.of(), failures);
  }
}
