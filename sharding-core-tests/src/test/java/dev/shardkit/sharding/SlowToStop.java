package dev.shardkit.sharding;

import dev.shardkit.sharding.testkit.CborSerializable;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * An entity that answers pings and, asked to stop ({@link Stop}, its stop message), takes a while
 * to do so: a hand-off of its shard lasts at least that long, and messages for it are held
 * meanwhile.
 */
final class SlowToStop {
  private SlowToStop() {}

  interface Cmd {}

  record Ping(int n, ActorRef<Integer> replyTo) implements Cmd, CborSerializable {}

  enum Stop implements Cmd, CborSerializable { INSTANCE }

  private enum StopNow implements Cmd { INSTANCE }

  /**
   * @param stopping how long it takes to stop when asked
   * @param atOnce when true, it stops as soon as asked (so that a test's nodes shut down quickly)
   * @param stopped runs when an incarnation has stopped
   */
  static Behavior<Cmd> create(Duration stopping, BooleanSupplier atOnce, Runnable stopped) {
    return Behaviors.withTimers(timers -> Behaviors.receive(Cmd.class)
        .onMessage(Ping.class, p -> {
          p.replyTo().tell(p.n());
          return Behaviors.same();
        })
        .onMessageEquals(Stop.INSTANCE, () -> {
          if (atOnce.getAsBoolean()) {
            return Behaviors.<Cmd>stopped();
          }
          timers.startSingleTimer(StopNow.INSTANCE, stopping);
          return Behaviors.same();
        })
        .onMessageEquals(StopNow.INSTANCE, Behaviors::stopped)
        .onSignal(PostStop.class, s -> {
          stopped.run();
          return Behaviors.same();
        })
        .build());
  }
}
