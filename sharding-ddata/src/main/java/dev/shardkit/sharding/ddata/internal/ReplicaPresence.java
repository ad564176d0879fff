package dev.shardkit.sharding.ddata.internal;

import dev.shardkit.sharding.internal.store.SameThreadStages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.ActorIdentity;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Identify;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.UniqueAddress;
import org.apache.pekko.pattern.Patterns;

/**
 * On which members one of shardkit's replicators runs. A member of the replicator's role counts
 * as a replica from the moment it is Up, but its replicator starts only when its application
 * starts an entity type there ({@code ClusterSharding.start}); until then what other replicators
 * send it is dropped, and a read or write that needs its answer waits for its whole timeout. So
 * before a read or write, {@link ReplicaMajority} asks here which replicas are not running yet and
 * waits for them instead; one round trip tells, since a node answers an {@link Identify} for an
 * actor it does not have at once.
 *
 * <p>Each member is asked until it has been seen running the replicator; from then on it is taken
 * to run it for as long as it is that member (a restarted node is a new member), so the check
 * costs nothing once every replica has started. A member that does not answer in time
 * (unreachable, or slow) is not reported: the read or write goes ahead and the majority decides,
 * as it would without this check. Thread-safe.
 */
public final class ReplicaPresence {
  private final ActorSystem system;
  private final String path;
  private final Set<UniqueAddress> running = ConcurrentHashMap.newKeySet();

  /**
   * @param system this node's actor system
   * @param replicator this node's replicator; the others have the same path on their nodes
   */
  public ReplicaPresence(ActorSystem system, ActorRef replicator) {
    this.system = system;
    this.path = replicator.path().toStringWithoutAddress();
  }

  /**
   * The members among {@code members} that answered, within {@code timeout}, that the replicator
   * does not run there (yet). Members seen running it before are not asked again.
   */
  public CompletionStage<List<Member>> notRunning(List<Member> members, Duration timeout) {
    List<CompletableFuture<Optional<Member>>> asks = new ArrayList<>();
    for (Member member : members) {
      if (!running.contains(member.uniqueAddress())) {
        asks.add(notRunning(member, timeout).toCompletableFuture());
      }
    }
    return CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new)).thenApply(all -> {
      List<Member> missing = new ArrayList<>();
      for (CompletableFuture<Optional<Member>> ask : asks) {
        ask.join().ifPresent(missing::add);
      }
      return missing;
    });
  }

  /** The member, if it answered that the replicator does not run there; empty if it runs or did not answer. */
  private CompletionStage<Optional<Member>> notRunning(Member member, Duration timeout) {
    return SameThreadStages.of(Patterns.ask(system.actorSelection(member.address().toString() + path),
            new Identify(path), timeout))
        .handle((reply, error) -> {
          if (reply instanceof ActorIdentity identity) {
            if (identity.getActorRef().isPresent()) {
              running.add(member.uniqueAddress());
              return Optional.<Member>empty();
            }
            return Optional.of(member);
          }
          return Optional.<Member>empty();
        });
  }
}
