package dev.shardkit.benchmarks.workloads;

import java.util.concurrent.atomic.LongAdder;
import org.apache.pekko.actor.AllDeadLetters;
import org.apache.pekko.actor.DeadLetter;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Counts, on one node, what ended as a dead letter, and tells apart who dropped it. Started once
 * per actor system ({@link #get}), before the traffic it should see.
 *
 * <ul>
 *   <li><b>Artery</b> ({@link #artery}): a remote send that remoting dropped because its outbound
 *       queue to the destination was full (or the association was quarantined and removed). Pekko
 *       1.7.0's {@code Association.send} then publishes a {@link Dropped} whose reason starts with
 *       "Due to overflow of send queue" (or "Due to removed unused quarantined association"),
 *       logs nothing above debug level, and also hands the envelope to dead letters, which
 *       publishes a {@link DeadLetter} addressed to the remote recipient. Each drop is counted
 *       once, from the {@code Dropped}, whatever the message (Pekko's sharding: the user's
 *       envelope; shardkit: a batch or an acknowledgement, which it sends again).
 *   <li><b>The library</b> ({@link #libraryDroppedAdds}): every other {@code DeadLetter} or
 *       {@code Dropped} that carries a {@link Counter.Add}, alone or in either library's envelope,
 *       except a {@code DeadLetter} addressed to a remote actor (Artery's second report of its
 *       own drop). In the workloads nothing but the sharding library handles these messages, so
 *       these are the drops it decided itself: Pekko's region when its buffer is full
 *       ({@code context.system.deadLetters ! msg}, a warning once per episode), for an empty
 *       shard id or at a hand-off (warnings), and its shard when its buffer for an entity is full
 *       (a {@code Dropped}, logged at debug level only).
 * </ul>
 */
public final class DeadLetterTally implements Extension {
  private static final ExtensionId<DeadLetterTally> ID = new ExtensionId<>() {
    @Override
    public DeadLetterTally createExtension(ActorSystem<?> system) {
      return new DeadLetterTally(system);
    }
  };

  private final LongAdder artery = new LongAdder();
  private final LongAdder arteryAdds = new LongAdder();
  private final LongAdder libraryAdds = new LongAdder();

  private DeadLetterTally(ActorSystem<?> system) {
    ActorRef<AllDeadLetters> listener = system.systemActorOf(
        Behaviors.receive(AllDeadLetters.class).onAnyMessage(d -> {
          count(d);
          return Behaviors.same();
        }).build(), "benchmarkDeadLetterTally", Props.empty());
    // The classic event stream subscribes at once, so nothing published after this returns is missed.
    Adapter.toClassic(system).eventStream().subscribe(Adapter.toClassic(listener), AllDeadLetters.class);
  }

  /** This system's tally, started on the first call. */
  public static DeadLetterTally get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  private void count(AllDeadLetters d) {
    if (d instanceof Dropped dropped && byArtery(dropped.reason())) {
      artery.increment();
      if (isAdd(d.message())) {
        arteryAdds.increment();
      }
      return;
    }
    // Artery's second report of its own drop: a DeadLetter addressed to the remote recipient.
    boolean arterysDeadLetter = d instanceof DeadLetter && d.recipient() != null
        && d.recipient().path().address().hasGlobalScope();
    if ((d instanceof DeadLetter || d instanceof Dropped) && !arterysDeadLetter && isAdd(d.message())) {
      libraryAdds.increment();
    }
  }

  private static boolean byArtery(String reason) {
    return reason.startsWith("Due to overflow of send queue")
        || reason.startsWith("Due to removed unused quarantined association");
  }

  private static boolean isAdd(Object message) {
    if (message instanceof org.apache.pekko.cluster.sharding.typed.ShardingEnvelope<?> e) {
      return e.message() instanceof Counter.Add;
    }
    if (message instanceof dev.shardkit.sharding.ShardingEnvelope<?> e) {
      return e.message() instanceof Counter.Add;
    }
    return message instanceof Counter.Add;
  }

  /** Remote sends Artery dropped on this node since the tally started. */
  public long artery() {
    return artery.sum();
  }

  /**
   * Of {@link #artery}, the {@link Counter.Add} messages (alone or in an envelope): each one a
   * message lost for good, where a dropped batch of shardkit's is sent again.
   */
  public long arteryDroppedAdds() {
    return arteryAdds.sum();
  }

  /** {@link Counter.Add} messages dropped on this node by anything but Artery since the tally started. */
  public long libraryDroppedAdds() {
    return libraryAdds.sum();
  }
}
