package dev.shardkit.systemtest;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The entity of the freeze test: it tells the {@link Witness} when it starts, and every message it
 * processes, with its incarnation's number, so the test can see whether two incarnations of one
 * entity ever processed at the same time and in which order each sender's messages were handled.
 */
public final class WitnessedEntity {
  private WitnessedEntity() {}

  /** The {@code seq}-th message (from 0) that the node with index {@code sender} sends to this entity. */
  public record Tick(int sender, int seq) implements SeqCounter.CborSerializable {}

  static Behavior<Tick> create(String entityId, Witness witness) {
    int entity = index(entityId);
    return Behaviors.setup(ctx -> {
      int incarnation = witness.started(entity);
      return Behaviors.receive(Tick.class)
          .onMessage(Tick.class, t -> {
            witness.processed(entity, incarnation, t.sender(), t.seq());
            return Behaviors.same();
          })
          .build();
    });
  }

  static String id(int entity) {
    return "e-" + entity;
  }

  static int index(String entityId) {
    return Integer.parseInt(entityId.substring(2));
  }
}
