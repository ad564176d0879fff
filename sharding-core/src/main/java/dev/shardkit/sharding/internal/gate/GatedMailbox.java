package dev.shardkit.sharding.internal.gate;

import com.typesafe.config.Config;
import dev.shardkit.sharding.internal.InternalApi;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.dispatch.AbstractNodeQueue;
import org.apache.pekko.dispatch.Envelope;
import org.apache.pekko.dispatch.MailboxType;
import org.apache.pekko.dispatch.MessageQueue;
import org.apache.pekko.dispatch.ProducesMessageQueue;
import org.apache.pekko.dispatch.UnboundedMessageQueueSemantics;
import org.jspecify.annotations.Nullable;
import scala.Option;

/**
 * The mailbox of every entity: it hands the entity its next message only while the node's
 * {@link DeliveryGate} is open. This is the one place every message to an entity passes last,
 * whatever way it came (a caller's thread, the region, another node, the entity's own timers) and
 * however long it waited, so an entity whose node was paused and may have been replaced elsewhere
 * processes nothing until the node is confirmed a member again. Messages wait in the mailbox, in
 * order; when the gate opens the entity is woken and goes on where it stopped.
 *
 * <p>A queue that finds the gate closed reports itself empty, so the dispatcher does not keep
 * scheduling it, and parks on the gate; to be woken it sends its actor a {@link Wake}, which the
 * queue does not keep: sending any message schedules the actor's mailbox. System messages (stop,
 * watch) are not held, so an entity can always be stopped.
 *
 * <p>The queue is a multi-producer single-consumer linked queue, like Pekko's
 * {@code SingleConsumerOnlyUnboundedMailbox}: an actor's messages are taken by one thread at a time.
 *
 * <p>Internal API: public because Pekko creates it from the configuration; not for applications,
 * and it may change in any release.
 */
@InternalApi
public final class GatedMailbox implements MailboxType, ProducesMessageQueue<GatedMailbox.Queue> {

  /** The configuration path of this mailbox, for {@code MailboxSelector.fromConfig}. */
  public static final String CONFIG_PATH = "shardkit.sharding.entity-mailbox";

  /** Sent to an entity to wake its mailbox once the gate has opened; never delivered. */
  enum Wake implements NoSerializationVerificationNeeded { INSTANCE }

  /** Called by Pekko with the mailbox's configuration section. */
  public GatedMailbox(ActorSystem.Settings settings, Config config) {
  }

  @Override
  public MessageQueue create(Option<ActorRef> owner, Option<ActorSystem> system) {
    DeliveryGate gate = system.isDefined() ? NodeGate.get(Adapter.toTyped(system.get())).gate() : null;
    return new Queue(gate, owner.isDefined() ? owner.get() : null);
  }

  /** An entity's queue. */
  public static final class Queue extends AbstractNodeQueue<Envelope>
      implements MessageQueue, UnboundedMessageQueueSemantics, DeliveryGate.Parked {
    private final DeliveryGate gate;
    private final ActorRef owner;

    Queue(DeliveryGate gate, ActorRef owner) {
      this.gate = gate;
      this.owner = owner;
    }

    @Override
    public void enqueue(ActorRef receiver, Envelope handle) {
      if (handle.message() != Wake.INSTANCE) {
        add(handle);
      }
    }

    @Override
    public @Nullable Envelope dequeue() {
      if (gate != null && !gate.isOpen() && !isEmpty() && gate.park(this)) {
        return null;
      }
      return poll();
    }

    @Override
    public int numberOfMessages() {
      return count();
    }

    @Override
    public boolean hasMessages() {
      // While the gate is closed the queue looks empty, so its actor is not scheduled in vain.
      return !isEmpty() && (gate == null || gate.isOpen());
    }

    @Override
    public void cleanUp(ActorRef owner, MessageQueue deadLetters) {
      // The actor has stopped: what it did not process goes to dead letters, gate or no gate.
      Envelope envelope;
      while ((envelope = poll()) != null) {
        deadLetters.enqueue(owner, envelope);
      }
    }

    @Override
    public void wake() {
      if (owner != null) {
        owner.tell(Wake.INSTANCE, ActorRef.noSender());
      }
    }
  }
}
