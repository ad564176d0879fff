package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.internal.membership.MemberSnapshot;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A new coordinator's wait before it places shards that have no home: until every node that may
 * host the type's shards ({@link MemberSnapshot#mayHostShards}: Up, weakly Up, leaving or exiting,
 * with the role) has registered its region or answered that it has none. Only then can no region
 * report a shard that the coordinator would place a second time; a leaving node's region still
 * hosts its shards until it has handed them off. Requests for homeless shards wait here meanwhile,
 * up to a limit; a refused request is reported by the coordinator. Owned by the coordinator actor; not thread-safe.
 */
final class Settling {
  private final Optional<String> role;
  private final int deferLimit;
  private final Set<Address> withoutRegion = new HashSet<>();
  private final Set<GetShardHome> deferred = new LinkedHashSet<>();
  private boolean done;

  /**
   * @param role the role of the nodes that host the type's shards, if any
   * @param deferLimit how many requests wait at most; more are dropped (regions ask again)
   */
  Settling(Optional<String> role, int deferLimit) {
    this.role = role;
    this.deferLimit = deferLimit;
  }

  /** The node answered that it has no region of the type: it hosts nothing to report. */
  void noRegionOn(Address node) {
    withoutRegion.add(node);
  }

  /**
   * A request for a homeless shard waits for the end of settling, unless the limit is reached.
   *
   * @return false if it was refused: the limit was reached (the region asks again)
   */
  boolean defer(GetShardHome request) {
    return deferred.contains(request) || deferred.size() < deferLimit && deferred.add(request);
  }

  /** How many requests wait. */
  int deferredCount() {
    return deferred.size();
  }

  /** The requests that waited, in arrival order (a repeated one once). */
  List<GetShardHome> deferred() {
    return List.copyOf(deferred);
  }

  /**
   * Checks whether every node that may host shards has a registered region or said it has none;
   * once it has, settling is {@link #done()} for good.
   *
   * @param regions the registered regions
   * @return {@link #done()}
   */
  boolean check(MemberSnapshot members, Collection<ActorRef<Object>> regions) {
    if (!done) {
      Set<Address> known = new HashSet<>(withoutRegion);
      regions.forEach(r -> known.add(members.addressOf(r)));
      done = known.containsAll(members.mayHostShards(role));
    }
    return done;
  }

  /** The settle timeout passed: settling is over for good, whoever was not heard from. */
  void timedOut() {
    done = true;
  }

  /**
   * Whether settling is over: every node that may host shards was heard from at a {@link #check},
   * or it {@link #timedOut()}.
   */
  boolean done() {
    return done;
  }
}
