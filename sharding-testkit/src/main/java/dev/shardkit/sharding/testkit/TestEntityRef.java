package dev.shardkit.sharding.testkit;

import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.EntityTypeKey;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * An {@link EntityRef} whose messages go to a test probe instead of an entity: for testing code
 * that sends to entities, without starting sharding. Give the code under test this reference
 * where it would get one from {@code ClusterSharding.entityRefFor} (so write that code to take an
 * {@code EntityRef}, or a function from entity id to {@code EntityRef}), then check with the probe
 * what it sent. An {@link #ask} reaches the probe as the message the factory built; the test
 * answers it through the message's reply-to reference.
 *
 * <pre>{@code
 * TestProbe<Counter.Command> probe = testKit.createTestProbe();
 * EntityRef<Counter.Command> ref = TestEntityRef.of(Counter.KEY, "counter-1", probe.ref(), testKit.system());
 * }</pre>
 *
 * <p>Like Pekko's {@code TestEntityRef} in {@code pekko-cluster-sharding-typed}'s testkit.
 *
 * @param <M> the entity's message type
 */
public final class TestEntityRef<M> implements EntityRef<M> {
  private final EntityTypeKey<M> typeKey;
  private final String entityId;
  private final ActorRef<M> probe;
  private final Scheduler scheduler;

  private TestEntityRef(EntityTypeKey<M> typeKey, String entityId, ActorRef<M> probe, Scheduler scheduler) {
    this.typeKey = typeKey;
    this.entityId = entityId;
    this.probe = probe;
    this.scheduler = scheduler;
  }

  /**
   * A reference to entity {@code entityId} of type {@code typeKey} whose messages go to
   * {@code probe}.
   *
   * @param probe where {@link #tell} and {@link #ask} send, usually a {@code TestProbe}'s
   *     {@code ref()}
   * @param system the actor system whose scheduler times the asks out (the probe's)
   * @throws IllegalArgumentException if an argument is null or {@code entityId} is empty
   */
  public static <M> TestEntityRef<M> of(EntityTypeKey<M> typeKey, String entityId, ActorRef<M> probe,
      ActorSystem<?> system) {
    if (typeKey == null) {
      throw new IllegalArgumentException("TestEntityRef needs an entity type key, got null");
    }
    if (entityId == null || entityId.isEmpty()) {
      throw new IllegalArgumentException("Entity id for entity type [" + typeKey.name() + "] must not be "
          + (entityId == null ? "null" : "empty"));
    }
    if (probe == null) {
      throw new IllegalArgumentException("TestEntityRef for entity [" + entityId + "] of type [" + typeKey.name()
          + "] needs a probe to send to, got null");
    }
    if (system == null) {
      throw new IllegalArgumentException("TestEntityRef for entity [" + entityId + "] of type [" + typeKey.name()
          + "] needs the actor system whose scheduler times out asks, got null");
    }
    return new TestEntityRef<>(typeKey, entityId, probe, system.scheduler());
  }

  @Override
  public EntityTypeKey<M> typeKey() {
    return typeKey;
  }

  @Override
  public String entityId() {
    return entityId;
  }

  /** The probe that receives this reference's messages. */
  public ActorRef<M> probe() {
    return probe;
  }

  /**
   * Sends {@code message} to the probe.
   *
   * @throws IllegalArgumentException if {@code message} is null, as a real {@code EntityRef} does
   */
  @Override
  public void tell(M message) {
    if (message == null) {
      throw new IllegalArgumentException("Cannot send null to entity [" + entityId + "] of type [" + typeKey.name()
          + "]");
    }
    probe.tell(message);
  }

  /**
   * Sends the message that {@code messageFactory} builds around a reply-to reference to the probe;
   * completes with what the test sends to that reference, or fails with a
   * {@link java.util.concurrent.TimeoutException} after {@code timeout}.
   *
   * @throws IllegalArgumentException if {@code messageFactory} is null, as a real
   *     {@code EntityRef} does
   */
  @Override
  public <R> CompletionStage<R> ask(Function<ActorRef<R>, M> messageFactory, Duration timeout) {
    if (messageFactory == null) {
      throw new IllegalArgumentException("ask to entity [" + entityId + "] of type [" + typeKey.name()
          + "] needs a message factory, got null");
    }
    return AskPattern.ask(probe, messageFactory::apply, timeout, scheduler);
  }

  @Override
  public String toString() {
    return "TestEntityRef(" + typeKey.name() + ", " + entityId + " -> " + probe.path() + ")";
  }
}
