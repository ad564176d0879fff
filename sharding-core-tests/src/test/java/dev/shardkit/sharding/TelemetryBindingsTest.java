package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.spi.ShardingTelemetry;
import dev.shardkit.sharding.testkit.CborSerializable;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testkit.TelemetryRecorder;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/** The bindings of {@code shardkit.sharding.telemetry.bindings}: one that throws, and ones that cannot be created. */
class TelemetryBindingsTest {
  record Ping(int n, ActorRef<Integer> replyTo) implements CborSerializable {}

  static final EntityTypeKey<Ping> KEY = EntityTypeKey.create(Ping.class, "Telemetered");

  /** Throws on every event. */
  public static final class Throwing implements ShardingTelemetry {
    static final AtomicInteger CALLS = new AtomicInteger();

    @Override
    public void onEvent(ShardingEvent event) {
      CALLS.incrementAndGet();
      throw new IllegalStateException("broken binding");
    }
  }

  /** Not a binding at all. */
  public static final class NotABinding {}

  static String bindings(String... classes) {
    return "shardkit.sharding.telemetry.bindings = [" + String.join(",",
        java.util.Arrays.stream(classes).map(c -> "\"" + c + "\"").toList()) + "]";
  }

  static void start(ActorSystem<?> system) {
    ClusterSharding.get(system).start(Entity.of(KEY, ctx -> Behaviors.receiveMessage(p -> {
      p.replyTo().tell(p.n());
      return Behaviors.same();
    })).withSettings(ShardingSettings.create(system).withNumberOfShards(4)));
  }

  @Test
  void aBindingThatThrowsIsLoggedOnceAndBreaksNeitherRoutingNorTheOtherBindings() throws Exception {
    try (LogCapture logs = new LogCapture(); TestCluster cluster = new TestCluster("ThrowingTelemetry")) {
      ActorSystem<?> system = cluster.add(bindings(Throwing.class.getName(), TelemetryRecorder.class.getName()));
      cluster.awaitUp(1);
      start(system);
      for (int i = 0; i < 8; i++) {
        int n = i;
        assertEquals(n, ClusterSharding.get(system).entityRefFor(KEY, "e-" + i)
            .<Integer>ask(r -> new Ping(n, r), Duration.ofSeconds(10)).toCompletableFuture().get(15, TimeUnit.SECONDS));
      }
      // The binding after the throwing one still sees every event.
      TelemetryRecorder.of(system).awaitCount(Duration.ofSeconds(10), 4, ShardingEvent.ShardPlaced.class,
          p -> p.typeName().equals(KEY.name()));
      assertTrue(Throwing.CALLS.get() > 1, "called " + Throwing.CALLS.get() + " times");
      assertEquals(1, logs.matching("Telemetry binding " + Throwing.class.getName() + " threw").size(),
          "logged once, however often it throws");
    }
  }

  @Test
  void aBindingThatCannotBeCreatedFailsStartWithItsNameAndWhy() {
    try (TestCluster cluster = new TestCluster("BadTelemetry")) {
      ActorSystem<?> missing = cluster.add(bindings("com.example.NoSuchBinding"));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> start(missing));
      assertTrue(e.getMessage().contains("shardkit.sharding.telemetry.bindings names com.example.NoSuchBinding, "
          + "which cannot be loaded"), e.getMessage());
      ActorSystem<?> wrong = cluster.add(bindings(NotABinding.class.getName()));
      e = assertThrows(IllegalArgumentException.class, () -> start(wrong));
      assertTrue(e.getMessage().contains(NotABinding.class.getName() + ", which does not implement "
          + ShardingTelemetry.class.getName()), e.getMessage());
    }
  }
}
