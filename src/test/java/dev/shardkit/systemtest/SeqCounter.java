package dev.shardkit.systemtest;

import java.util.HashMap;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The entity of the system test: counts what it receives from each sender and checks that each
 * sender's sequence numbers arrive as 0, 1, 2, … with nothing missing, repeated or reordered.
 */
public final class SeqCounter {
  private SeqCounter() {}

  /** Marker bound to {@code jackson-cbor} in the nodes' configuration. */
  public interface CborSerializable {}

  public sealed interface Command extends CborSerializable permits Tick, GetStats {}

  /** The {@code seq}-th message (from 0) that {@code sender} sends to this entity. */
  public record Tick(String sender, int seq) implements Command {}

  public record GetStats(ActorRef<Stats> replyTo) implements Command {}

  /**
   * @param received messages received in all
   * @param outOfOrder messages whose seq was not the previous one from the same sender plus one
   * @param duplicates messages whose seq was not above the previous one from the same sender
   * @param senders how many senders were heard from
   */
  public record Stats(String entityId, int received, int outOfOrder, int duplicates, int senders)
      implements CborSerializable {}

  public static Behavior<Command> create(String entityId) {
    return Behaviors.setup(ctx -> {
      Map<String, Integer> lastSeq = new HashMap<>();
      int[] counts = new int[3]; // received, outOfOrder, duplicates
      return Behaviors.receive(Command.class)
          .onMessage(Tick.class, t -> {
            counts[0]++;
            int last = lastSeq.getOrDefault(t.sender(), -1);
            if (t.seq() != last + 1) {
              counts[1]++;
            }
            if (t.seq() <= last) {
              counts[2]++;
            }
            lastSeq.put(t.sender(), Math.max(last, t.seq()));
            return Behaviors.same();
          })
          .onMessage(GetStats.class, g -> {
            g.replyTo().tell(new Stats(entityId, counts[0], counts[1], counts[2], lastSeq.size()));
            return Behaviors.same();
          })
          .build();
    });
  }
}
