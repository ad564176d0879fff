package dev.shardkit.sharding.internal.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.MailboxSelector;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.MemberStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Entities' mailboxes hold their messages while the node's gate is closed, and only then. */
class GatedMailboxTest {
  private ActorTestKit testKit;
  private DeliveryGate gate;

  @BeforeEach
  void start() {
    testKit = ActorTestKit.create(ConfigFactory.parseString("""
        pekko.actor.provider = cluster
        pekko.remote.artery.canonical { hostname = 127.0.0.1, port = 0 }
        # Only the test opens and closes the gate: a busy machine must not look like a pause.
        shardkit.sharding.delivery-gate.pause-threshold = 1h
        """));
    gate = NodeGate.get(testKit.system()).gate();
  }

  @AfterEach
  void stop() {
    testKit.shutdownTestKit();
  }

  /** Forwards whatever it processes, so the probe sees exactly what reached the behavior. */
  private ActorRef<Object> entity(TestProbe<Object> probe) {
    Behavior<Object> forward = Behaviors.receiveMessage(m -> {
      probe.ref().tell(m);
      return Behaviors.same();
    });
    return testKit.spawn(forward, MailboxSelector.fromConfig(GatedMailbox.CONFIG_PATH));
  }

  @Test
  void messagesWaitWhileTheGateIsClosedAndComeInOrderWhenItOpens() {
    TestProbe<Object> probe = testKit.createTestProbe();
    ActorRef<Object> entity = entity(probe);
    entity.tell("before");
    probe.expectMessage("before");

    long since = gate.now();
    assertTrue(gate.close());
    for (int i = 0; i < 100; i++) {
      entity.tell(i);
    }
    probe.expectNoMessage(Duration.ofMillis(300));

    assertTrue(gate.open(since));
    List<Object> got = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      got.add(probe.receiveMessage());
    }
    List<Object> expected = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      expected.add(i);
    }
    assertEquals(expected, got, "every held message, in order, and nothing else (no wake-up message)");
    probe.expectNoMessage(Duration.ofMillis(100));
  }

  @Test
  void anIdleEntityWhoseMessageArrivedWhileClosedIsWokenWhenItOpens() {
    TestProbe<Object> probe = testKit.createTestProbe();
    ActorRef<Object> entity = entity(probe);
    long since = gate.now();
    gate.close();
    entity.tell("held");
    probe.expectNoMessage(Duration.ofMillis(200));
    assertEquals(1, gate.parkedCount());
    gate.open(since);
    probe.expectMessage("held");
  }

  @Test
  void anEntityCanBeStoppedWhileItsMessagesWait() {
    TestProbe<Object> probe = testKit.createTestProbe();
    ActorRef<Object> entity = entity(probe);
    gate.close();
    entity.tell("never");
    testKit.stop(entity);
    probe.expectNoMessage(Duration.ofMillis(200));
  }

  @Test
  void theGateKeeperOpensOnlyAGateItClosed() {
    // The test above closes the gate behind the keeper's back; a cluster event must not make the
    // keeper open it (this flaked once when an event came in between close and stop).
    TestProbe<Object> probe = testKit.createTestProbe();
    ActorRef<Object> entity = entity(probe);
    gate.close();
    entity.tell("held");
    Cluster cluster = Cluster.get(Adapter.toClassic(testKit.system()));
    cluster.join(cluster.selfAddress());
    probe.awaitAssert(Duration.ofSeconds(10), () -> {
      assertEquals(MemberStatus.up(), cluster.selfMember().status());
      return null;
    });
    probe.expectNoMessage(Duration.ofMillis(300));
    assertEquals(DeliveryGate.State.CLOSED, gate.state());
  }

  @Test
  void aNodeThatIsOutNeverDelivers() {
    TestProbe<Object> probe = testKit.createTestProbe();
    ActorRef<Object> entity = entity(probe);
    gate.close();
    entity.tell("never");
    gate.down();
    assertTrue(!gate.open(gate.now()));
    probe.expectNoMessage(Duration.ofMillis(300));
  }
}
