package dev.shardkit.sharding.ddata.internal;

import dev.shardkit.sharding.ddata.DDataSettings;
import dev.shardkit.sharding.internal.ShardIds;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.CoordinatorStateSupersededException;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.UniqueAddress;
import org.apache.pekko.cluster.ddata.Replicator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one entity type's coordinator state in shardkit's replicator for the type's role, as a
 * {@link CoordinatorStateRecord} under {@link CoordinatorStateKey}: loaded with a majority read
 * and taken over with a majority write before the coordinator serves; each batch of events stored
 * as the whole state after it (which the coordinator computes) with a majority write.
 * {@link CoordinatorStateRecord} explains why the stored state never goes backwards for a
 * successor; {@link ReplicaMajority} how majorities are counted and reads retried.
 *
 * <p>The coordinator's term is the term of its take-over record, which is greater than every term
 * its majority read saw, so greater than that of every coordinator that served before it. A write
 * that meets a greater record on this node's replica fails with
 * {@link CoordinatorStateSupersededException}; one that does not (the replica has not seen the
 * take-over yet) may be confirmed, but it loses every merge against the successor's records, and
 * what its coordinator tells regions carries a term they no longer act on.
 *
 * <p>A write that times out fails at once: it may have reached some replicas, which is harmless
 * (it loses to every later record), and the coordinator retries it with back-off, which stores the
 * same state again under a new version, so retrying is idempotent.
 *
 * <p>One instance per coordinator incarnation; the coordinator makes one call at a time, but
 * replies complete on other threads, hence the lock.
 */
public final class DDataCoordinatorStateStore implements CoordinatorStateStore {
  private static final Logger LOG = LoggerFactory.getLogger(DDataCoordinatorStateStore.class);
  /** Makes writer names unique when one node runs several coordinator incarnations of a type. */
  private static final AtomicLong INCARNATIONS = new AtomicLong();

  private final String typeName;
  private final Optional<String> role;
  private final DDataSettings settings;
  private final CoordinatorStateKey key;
  private final ReplicaMajority majority;
  private final String writer;

  // Guarded by this.
  /** This incarnation's last record a majority confirmed; null until the take-over is confirmed. */
  private CoordinatorStateRecord confirmed;
  private long lastSeq;
  /** The highest term this incarnation tried to take over with, confirmed or not. */
  private long lastTerm;

  /**
   * @param replicator shardkit's replicator for {@code role}, from {@link Replicators}
   * @throws IllegalArgumentException if the type name is null or empty
   */
  public DDataCoordinatorStateStore(ActorSystem<?> system, String typeName, Optional<String> role,
      DDataSettings settings, ActorRef replicator) {
    this.typeName = typeName;
    this.role = role;
    this.settings = settings;
    this.key = CoordinatorStateKey.of(typeName);
    this.majority = new ReplicaMajority(system, role, settings, replicator, "Entity type [" + typeName + "]",
        "the coordinator state store was closed (its coordinator stopped)");
    UniqueAddress self = majority.cluster().selfUniqueAddress();
    this.writer = self.address() + "#" + self.longUid() + "/" + INCARNATIONS.incrementAndGet();
  }

  @Override
  public CompletionStage<LoadedCoordinatorState> load() {
    if (majority.isClosed()) {
      return majority.closedFailure();
    }
    return ReplicaMajority.unwrapped(majority.read(key, "the coordinator state").thenCompose(this::takeOver));
  }

  /** One write for the whole batch: the store keeps whole states, so only the state after it matters. */
  @Override
  public CompletionStage<Void> store(List<CoordinatorEvent> events, CoordinatorState stateAfter) {
    try {
      // Refused here, with the event named, rather than by the serializer inside the replicator,
      // where the failure would only show as a timed-out write retried for ever.
      ShardIds.requireIn(events, "Entity type [" + typeName + "]: the ddata coordinator state store");
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(e);
    }
    return storeState(stateAfter, events.size() == 1 ? String.valueOf(events.get(0))
        : events.size() + " changes (the last " + events.get(events.size() - 1) + ")");
  }

  private CompletionStage<Void> storeState(CoordinatorState stateAfter, String what) {
    CoordinatorStateRecord record;
    synchronized (this) {
      if (majority.isClosed()) {
        return majority.closedFailure();
      }
      if (confirmed == null) {
        return CompletableFuture.failedFuture(new IllegalStateException("Entity type [" + typeName + "]: the "
            + "coordinator state store was asked to store " + what + " before a load completed"));
      }
      // A new seq for every attempt, so that an earlier attempt of this write that timed out and
      // arrives late cannot win over this one.
      record = confirmed.followedBy(++lastSeq, stateAfter);
    }
    return ReplicaMajority.unwrapped(write(record, () -> "the state after " + what).thenAccept(ok -> {
      synchronized (this) {
        if (confirmed.compareTo(record) < 0) {
          confirmed = record;
        }
      }
    }));
  }

  @Override
  public String describe() {
    return "ddata (replicated in memory on " + role.map(r -> "the nodes with role [" + r + "]").orElse("every node")
        + "; writes and reads by majority, of at least " + settings.majorityMinCap()
        + " nodes or all of them; lost only if the whole cluster stops)";
  }

  @Override
  public void close() {
    majority.close();
  }

  // ---- load

  private CompletionStage<LoadedCoordinatorState> takeOver(Optional<CoordinatorStateRecord> loaded) {
    CoordinatorStateRecord record;
    synchronized (this) {
      if (majority.isClosed()) {
        return majority.closedFailure();
      }
      record = CoordinatorStateRecord.takeOver(loaded, lastTerm, writer);
      lastTerm = record.version().term();
    }
    return write(record, () -> "the take-over as term " + record.version().term()).thenApply(ok -> {
      synchronized (this) {
        confirmed = record;
        lastSeq = 0;
      }
      CoordinatorState state = record.state();
      if (loaded.isPresent()) {
        LOG.info("Entity type [{}]: coordinator state loaded on {} from a majority of the replicas: {} region(s), "
            + "{} proxy(ies), {} shard home(s) (version {}); taken over as term {}", typeName,
            majority.cluster().selfAddress(), state.regions().size(), state.proxies().size(), state.shards().size(),
            loaded.get().version(), record.version().term());
      } else {
        LOG.info("Entity type [{}]: no coordinator state stored yet (a majority of the replicas has none); "
            + "coordinator on {} starts empty as term {}", typeName, majority.cluster().selfAddress(),
            record.version().term());
      }
      return new LoadedCoordinatorState(record.version().term(), state);
    });
  }

  // ---- write

  private CompletionStage<Void> write(CoordinatorStateRecord record, Supplier<String> what) {
    Replicator.Update<CoordinatorStateRecord> update = new Replicator.Update<>(key, record,
        majority.writeConsistency(), existing -> {
          // Runs in the replicator, on its local replica. Something greater there means another
          // coordinator took over after this one: refuse rather than let merge keep its record and
          // report our write as done.
          if (existing.compareTo(record) > 0) {
            throw new CoordinatorStateSupersededException(superseded(existing, record));
          }
          return record;
        });
    return majority.write(update, () -> what.get() + " (version " + record.version() + ")",
        "It may have reached some of them, which is harmless: a retry writes it again under a newer version");
  }

  private String superseded(CoordinatorStateRecord existing, CoordinatorStateRecord mine) {
    return "Entity type [" + typeName + "]: the coordinator state was taken over by another coordinator (version "
        + existing.version() + ") after this one (version " + mine.version() + "), so this one's writes are "
        + "refused. Two coordinators of the type ran at once, e.g. in a network partition that no downing "
        + "provider resolved; this coordinator loads again";
  }
}
