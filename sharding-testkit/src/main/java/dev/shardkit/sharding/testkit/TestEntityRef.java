package dev.shardkit.sharding.testkit;

import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.internal.region.AbstractEntityRef;
import dev.shardkit.sharding.internal.util.Arguments;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;

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
 * <p>It asks as a real {@code EntityRef} does: {@link #ask} and {@link #askWithStatus} (the test
 * answers with a {@code StatusReply}), Pekko's {@code AskPattern.ask} and {@code askWithStatus}, and
 * {@code ActorContext.ask} from an actor under test, all send to the probe; an ask nobody answers
 * fails with Pekko's {@code AskTimeoutException} naming this reference and the message's class,
 * and once the probe has stopped an ask fails at once.
 *
 * <p>Like Pekko's {@code TestEntityRef} in {@code pekko-cluster-sharding-typed}'s testkit.
 *
 * @param <M> the entity's message type
 */
public final class TestEntityRef<M> extends AbstractEntityRef<M> {
  private final EntityTypeKey<M> typeKey;
  private final String entityId;
  private final ActorRef<M> probe;

  private TestEntityRef(EntityTypeKey<M> typeKey, String entityId, ActorRef<M> probe, ActorSystem<?> system) {
    super(system);
    this.typeKey = typeKey;
    this.entityId = entityId;
    this.probe = probe;
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
    Arguments.requireNonNull(typeKey, "TestEntityRef.of", "typeKey");
    Arguments.requireNonNull(entityId, "TestEntityRef.of(" + typeKey.name() + ")", "entityId");
    if (entityId.isEmpty()) {
      throw new IllegalArgumentException("Entity id for entity type [" + typeKey.name() + "] must not be empty");
    }
    Arguments.requireNonNull(probe, "TestEntityRef.of(" + typeKey.name() + ", " + entityId + ")", "probe");
    Arguments.requireNonNull(system, "TestEntityRef.of(" + typeKey.name() + ", " + entityId + ")", "system",
        "its scheduler times asks out");
    return new TestEntityRef<>(typeKey, entityId, probe, system);
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
      throw nullArgument("tell", "message");
    }
    probe.tell(message);
  }

  /** The probe: once it has stopped, asks fail at once, as a real one's do once its region has stopped. */
  @Override
  protected ActorRef<?> terminatesWith() {
    return probe;
  }

  /** Names the entity and the probe; Pekko's ask timeouts quote it. */
  @Override
  public String toString() {
    return "TestEntityRef(" + typeKey.name() + ", " + entityId + " -> " + probe.path() + ")";
  }
}
