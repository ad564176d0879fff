package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import org.apache.pekko.actor.SuppressedDeadLetter;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts, at DEBUG, shardkit's own messages that reached an actor after it stopped and that Pekko
 * did not log as dead letters because they are marked {@code DeadLetterSuppression} (see
 * {@link ShardingProtocol}): a region or proxy that stopped as its node left, a region told of its
 * gate just after it stopped, a link's resend check. Such a message says nothing is wrong, but a
 * count that grows while no node comes or goes does. One listener per actor system, started with
 * the first entity type.
 */
@InternalApi
public final class SuppressedLetters implements Extension {

  /** Named after this class, so that its DEBUG lines can be turned on alone. */
  private static final Logger LOG = LoggerFactory.getLogger(SuppressedLetters.class);

  private static final ExtensionId<SuppressedLetters> ID = new ExtensionId<>() {
    @Override
    public SuppressedLetters createExtension(ActorSystem<?> system) {
      return new SuppressedLetters(system);
    }
  };

  private SuppressedLetters(ActorSystem<?> system) {
    var listener = system.systemActorOf(listener(), "shardkit-suppressed-letters", Props.empty());
    Adapter.toClassic(system).eventStream().subscribe(Adapter.toClassic(listener), SuppressedDeadLetter.class);
  }

  /** Starts this node's listener, once. */
  static void start(ActorSystem<?> system) {
    ID.apply(system);
  }

  /** Whether a suppressed dead letter is one of shardkit's messages, rather than Pekko's or the application's. */
  static boolean isShardkits(Object message) {
    return message.getClass().getName().startsWith(SuppressedLetters.class.getPackageName() + ".");
  }

  private static Behavior<SuppressedDeadLetter> listener() {
    return Behaviors.setup(ctx -> {
      // This actor's own: it handles one message at a time.
      long[] count = {0};
      return Behaviors.receive(SuppressedDeadLetter.class)
          .onMessage(SuppressedDeadLetter.class, d -> {
            if (isShardkits(d.message())) {
              count[0]++;
              LOG.debug("{} reached {} after it stopped (its node left, or it stopped as the message came); "
                  + "{} such message(s) of shardkit's on this node so far", d.message(), d.recipient(), count[0]);
            }
            return Behaviors.same();
          })
          .build();
    });
  }
}
