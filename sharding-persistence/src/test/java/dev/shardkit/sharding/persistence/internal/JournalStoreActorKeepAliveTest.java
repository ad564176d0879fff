package dev.shardkit.sharding.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.shardkit.sharding.spi.CoordinatorStateSupersededException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/**
 * The keep-alives of a {@link JournalStoreActor}, against a journal that the test answers by hand:
 * written once due, never while a write is in flight, tried again after a failure, and no more
 * once one is refused for good; the store's own writes go on after that.
 */
class JournalStoreActorKeepAliveTest {
  /** A journal command: {@code what} is "write" or "keep-alive". */
  record Cmd(long id, String what, ActorRef<JournalAnswer> replyTo) {}

  static JournalStoreActor.Call<Cmd> call(String what) {
    return (id, replyTo) -> new Cmd(id, what, replyTo);
  }

  static boolean superseded(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof CoordinatorStateSupersededException) {
        return true;
      }
    }
    return false;
  }

  static Cmd expect(TestProbe<Cmd> journal, String what) {
    Cmd cmd = journal.expectMessageClass(Cmd.class);
    assertEquals(what, cmd.what(), cmd.toString());
    return cmd;
  }

  @Test
  void writtenOnceDueNeverBesideAWriteInFlightRetriedAfterAFailureAndEndedByARefusal() {
    ActorTestKit testKit = ActorTestKit.create();
    try {
      keepAlives(testKit);
    } finally {
      testKit.shutdownTestKit();
    }
  }

  private static void keepAlives(ActorTestKit testKit) {
    TestProbe<Cmd> journal = testKit.createTestProbe(Cmd.class);
    TestProbe<JournalStoreActor.Reply> replies = testKit.createTestProbe(JournalStoreActor.Reply.class);
    ActorRef<JournalStoreActor.Command> store = testKit.spawn(JournalStoreActor.create(
        new JournalStoreActor.Spec<Cmd>("Test store", "Test", "the test", "test-id",
            () -> Behaviors.<Cmd>receiveMessage(cmd -> {
              journal.ref().tell(cmd);
              return Behaviors.same();
            })),
        () -> CompletableFuture.completedFuture(Done.getInstance())));
    KeepAlivePace pace = new KeepAlivePace(Duration.ofMillis(100));
    store.tell(new JournalStoreActor.KeepAlive(call("keep-alive"), pace, JournalStoreActorKeepAliveTest::superseded));

    // A write the journal does not answer yet: many intervals pass, and no keep-alive joins it.
    store.tell(new JournalStoreActor.Request(call("write"), "could not write", replies.ref()));
    Cmd write = expect(journal, "write");
    journal.expectNoMessage(pace.interval().multipliedBy(5));
    write.replyTo().tell(JournalAnswer.of(write.id(), Done.getInstance()));
    assertNull(replies.expectMessageClass(JournalStoreActor.Reply.class).failure());

    // Once the write is answered and an interval passed: a keep-alive. One that failed (the
    // database is away) is tried again.
    Cmd first = expect(journal, "keep-alive");
    first.replyTo().tell(JournalAnswer.failed(first.id(), new IllegalStateException("the database is away")));
    Cmd again = expect(journal, "keep-alive");

    // Refused as superseded: no more keep-alives, and the store's writes still go through.
    again.replyTo().tell(JournalAnswer.failed(again.id(), new CoordinatorStateSupersededException("term 7")));
    journal.expectNoMessage(pace.interval().multipliedBy(5));
    store.tell(new JournalStoreActor.Request(call("write"), "could not write", replies.ref()));
    Cmd later = expect(journal, "write");
    later.replyTo().tell(JournalAnswer.of(later.id(), Done.getInstance()));
    assertNull(replies.expectMessageClass(JournalStoreActor.Reply.class).failure());
    journal.expectNoMessage(pace.interval().multipliedBy(3));
  }
}
