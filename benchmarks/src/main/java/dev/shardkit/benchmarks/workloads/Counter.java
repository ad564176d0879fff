package dev.shardkit.benchmarks.workloads;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * The entity of every workload, the same for both libraries and for plain actors: it counts what
 * it receives and answers how many. A {@link Hook} lets the workload observe messages without a
 * message of its own.
 */
public final class Counter extends AbstractBehavior<Counter.Command> {

  public sealed interface Command extends CborSerializable permits Add, Get {}

  /** Counted. {@code sender} and {@code seq} identify the message for loss checks. */
  public record Add(String sender, long seq) implements Command {}

  /** Answered with the count of this incarnation. */
  public record Get(ActorRef<Count> replyTo) implements Command {}

  public record Count(String entityId, long count) implements CborSerializable {}

  /** Lets a workload observe entities without a message of its own. */
  @FunctionalInterface
  public interface Hook {
    Hook NONE = (entityId, add, count) -> {};

    /** Called in the entity for every {@link Add}, with the count including it. */
    void added(String entityId, Add add, long count);

    /**
     * Called in the entity's setup, once per incarnation: how the recovery workload sees a
     * remembered entity come back, since nothing is sent to it after the restart.
     */
    default void started(String entityId) {}

    /** Called in the entity for every {@link Get}, before it answers. */
    default void asked(String entityId) {}
  }

  private final String entityId;
  private final Hook hook;
  private long count;

  private Counter(ActorContext<Command> context, String entityId, Hook hook) {
    super(context);
    this.entityId = entityId;
    this.hook = hook;
    hook.started(entityId);
  }

  public static Behavior<Command> create(String entityId, Hook hook) {
    return Behaviors.setup(ctx -> new Counter(ctx, entityId, hook));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Add.class, this::onAdd)
        .onMessage(Get.class, this::onGet)
        .build();
  }

  private Behavior<Command> onAdd(Add add) {
    hook.added(entityId, add, ++count);
    return this;
  }

  private Behavior<Command> onGet(Get get) {
    hook.asked(entityId);
    get.replyTo().tell(new Count(entityId, count));
    return this;
  }
}
