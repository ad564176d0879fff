package dev.shardkit.sharding.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.gate.GateKeeper;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHomes;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.AllDeadLetters;
import org.apache.pekko.actor.SuppressedDeadLetter;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the coordinator tells every region and proxy ends, at one that has stopped, as a dead
 * letter Pekko does not log; shardkit counts its own at DEBUG.
 */
class SuppressedLettersTest {
  private static ActorTestKit testKit;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create();
    SuppressedLetters.start(testKit.system());
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  /** The first dead letter of {@code message}, sent to an actor that has stopped. */
  private static AllDeadLetters deadLetterOf(Object message) {
    TestProbe<AllDeadLetters> letters = testKit.createTestProbe();
    Adapter.toClassic(testKit.system()).eventStream().subscribe(Adapter.toClassic(letters.ref()), AllDeadLetters.class);
    try {
      ActorRef<Object> gone = testKit.spawn(Behaviors.stopped());
      TestProbe<Object> watcher = testKit.createTestProbe();
      watcher.expectTerminated(gone, Duration.ofSeconds(5));
      gone.tell(message);
      // Pekko publishes each undelivered message once, either logged (DeadLetter) or not (suppressed).
      return letters.fishForMessage(Duration.ofSeconds(5), d -> d.message() == message
          ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
          : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore()).get(0);
    } finally {
      Adapter.toClassic(testKit.system()).eventStream().unsubscribe(Adapter.toClassic(letters.ref()));
    }
  }

  @Test
  void whatTheCoordinatorTellsEveryoneIsNotLoggedAtARegionThatStopped() {
    ActorRef<Object> region = testKit.createTestProbe().ref();
    for (Object told : new Object[] {
        new RegisterAck(region, 7),
        new BeginHandOff("s1", region, Set.of(region), 3, 7),
        new ShardHome("s1", region, 7),
        new ShardHomes(Map.of("s1", region), 7),
        GateKeeper.GateChanged.DOWN}) {
      assertInstanceOf(SuppressedDeadLetter.class, deadLetterOf(told), told.toString());
    }
  }

  @Test
  void whatARegionAsksIsStillLogged() {
    // A request or a delivery that reaches a stopped actor is worth a line in the log.
    ActorRef<Object> region = testKit.createTestProbe().ref();
    assertEquals(org.apache.pekko.actor.DeadLetter.class,
        deadLetterOf(new ShardingProtocol.GetShardHome("s1", region)).getClass());
  }

  @Test
  void onlyShardkitsOwnMessagesAreCounted() {
    assertTrue(SuppressedLetters.isShardkits(new ShardHome("s1", null, 7)));
    assertTrue(SuppressedLetters.isShardkits(GateKeeper.GateChanged.DOWN));
    assertFalse(SuppressedLetters.isShardkits(org.apache.pekko.cluster.ClusterEvent.ClusterShuttingDown$.MODULE$));
    assertFalse(SuppressedLetters.isShardkits("an application's message"));
  }
}
