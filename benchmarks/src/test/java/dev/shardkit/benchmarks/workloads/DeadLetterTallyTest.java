package dev.shardkit.benchmarks.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.shardkit.benchmarks.harness.Nodes;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.DeadLetter;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The tally tells Artery's drops from the library's, as Pekko 1.7.0 reports them: Artery publishes
 * a {@code Dropped} and a {@code DeadLetter} to the remote recipient for one drop.
 */
class DeadLetterTallyTest {
  private final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), Nodes.SYSTEM_NAME,
      Nodes.config("", List.of()));

  @AfterEach
  void stop() {
    Nodes.terminate(List.of(system));
  }

  @Test
  void arteryDropsAreCountedOnceAndApartFromTheLibrarysOwn() {
    DeadLetterTally tally = DeadLetterTally.get(system);
    ExtendedActorSystem classic = (ExtendedActorSystem) Adapter.toClassic(system);
    var stream = classic.eventStream();
    ActorRef remoteRegion = classic.provider().resolveActorRef(
        "pekko://" + Nodes.SYSTEM_NAME + "@127.0.0.1:1/system/sharding/Counter");
    ActorRef localRegion = classic.provider().resolveActorRef("pekko://" + Nodes.SYSTEM_NAME + "/system/sharding/Counter");
    var add = new Counter.Add("s", 1);
    var pekkoEnvelope = new org.apache.pekko.cluster.sharding.typed.ShardingEnvelope<>("e", add);

    // One Artery overflow, reported twice.
    stream.publish(new Dropped(pekkoEnvelope, "Due to overflow of send queue, size [3072]", ActorRef.noSender(),
        remoteRegion));
    stream.publish(new DeadLetter(pekkoEnvelope, classic.deadLetters(), remoteRegion));
    // One of something else (for shardkit: a batch, which it sends again).
    stream.publish(new Dropped("a batch", "Due to overflow of send queue, size [3072]", ActorRef.noSender(),
        remoteRegion));
    stream.publish(new DeadLetter("a batch", classic.deadLetters(), remoteRegion));
    // Pekko's region with a full buffer, its shard with a full entity buffer, and shardkit's drop.
    stream.publish(new DeadLetter(pekkoEnvelope, localRegion, classic.deadLetters()));
    stream.publish(new Dropped(pekkoEnvelope, "Buffer for [e] is full", ActorRef.noSender(), localRegion));
    stream.publish(Dropped.apply(add, "shardkit [Counter]: remote delivery is not keeping up", remoteRegion));
    // Not a workload message: not the library's drop of one.
    stream.publish(new DeadLetter("something else", localRegion, classic.deadLetters()));

    Nodes.await(Duration.ofSeconds(10), () -> tally.artery() == 2 && tally.libraryDroppedAdds() == 3,
        "the tally counts 2 Artery drops and 3 of the library's");
    assertEquals(2, tally.artery());
    assertEquals(1, tally.arteryDroppedAdds());
    assertEquals(3, tally.libraryDroppedAdds());
  }
}
