package dev.shardkit.sharding.ddata.internal;

import dev.shardkit.sharding.ddata.DDataSettings;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.UniqueAddress;
import org.apache.pekko.cluster.ddata.Replicator;
import org.apache.pekko.pattern.AskTimeoutException;
import org.apache.pekko.pattern.Patterns;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.concurrent.duration.FiniteDuration;

/**
 * Keeps one entity type's coordinator state in shardkit's replicator for the type's role, as a
 * {@link CoordinatorStateRecord} under {@link CoordinatorStateKey}: loaded with a majority read
 * and taken over with a majority write before the coordinator serves; each event stored as the
 * whole state after it with a majority write. {@link CoordinatorStateRecord} explains why the
 * stored state never goes backwards for a successor.
 *
 * <p>Majorities are of at least {@code majority-min-cap} nodes (all if fewer), and leave out the
 * nodes that are exiting the cluster (Pekko's {@code ReadMajorityPlus}/{@code WriteMajorityPlus}
 * with nothing added): their copies are about to go, so a write they confirmed would not protect
 * the state, and when the coordinator's own node leaves, its successor's take-over does not wait
 * for a node that is shutting down. A majority read and an earlier majority write still share a
 * staying node (also when the writer was itself exiting: it counts itself, but of the S staying
 * nodes it needs at least (S + 1) / 2, and a read needs S / 2 + 1 of them).
 *
 * <p>A read that times out is tried again up to {@code read-retries} times, then the load fails.
 * A write that times out fails at once: it may have reached some replicas, which is harmless (it
 * loses to every later record), and the coordinator retries it with back-off, which stores the
 * same state again under a new version, so retrying is idempotent.
 *
 * <p>One instance per coordinator incarnation; the coordinator makes one call at a time, but
 * replies complete on other threads, hence the lock.
 */
public final class DDataCoordinatorStateStore implements CoordinatorStateStore {
  private static final Logger LOG = LoggerFactory.getLogger(DDataCoordinatorStateStore.class);
  /** Makes writer names unique when one node runs several coordinator incarnations of a type. */
  private static final AtomicLong INCARNATIONS = new AtomicLong();
  /** How often a load checks whether the replicator has caught up with the cluster's members. */
  private static final Duration MEMBERSHIP_POLL = Duration.ofMillis(50);

  private final ActorSystem<?> system;
  private final String typeName;
  private final Optional<String> role;
  private final DDataSettings settings;
  private final ActorRef replicator;
  private final CoordinatorStateKey key;
  private final Cluster cluster;
  private final String writer;

  // Guarded by this.
  /** This incarnation's last record a majority confirmed; null until the take-over is confirmed. */
  private CoordinatorStateRecord confirmed;
  private long lastSeq;
  /** The highest term this incarnation tried to take over with, confirmed or not. */
  private long lastTerm;
  private boolean closed;

  /**
   * @param replicator shardkit's replicator for {@code role}, from {@link Replicators}
   * @throws IllegalArgumentException if the type name is null or empty
   */
  public DDataCoordinatorStateStore(ActorSystem<?> system, String typeName, Optional<String> role,
      DDataSettings settings, ActorRef replicator) {
    this.system = system;
    this.typeName = typeName;
    this.role = role;
    this.settings = settings;
    this.replicator = replicator;
    this.key = CoordinatorStateKey.of(typeName);
    this.cluster = Cluster.get(Adapter.toClassic(system));
    UniqueAddress self = cluster.selfUniqueAddress();
    this.writer = self.address() + "#" + self.longUid() + "/" + INCARNATIONS.incrementAndGet();
  }

  @Override
  public CompletionStage<CoordinatorState> load() {
    synchronized (this) {
      if (closed) {
        return closedFailure();
      }
    }
    return unwrapped(read(1).thenCompose(this::takeOver));
  }

  @Override
  public CompletionStage<Void> store(CoordinatorEvent event, CoordinatorState stateAfter) {
    return storeState(stateAfter, String.valueOf(event));
  }

  /** One write for the whole batch: the store keeps whole states, so only the last one matters. */
  @Override
  public CompletionStage<Void> storeAll(CoordinatorState stateBefore, List<CoordinatorEvent> events) {
    CoordinatorState after = stateBefore;
    for (CoordinatorEvent event : events) {
      after = after.applied(event);
    }
    return storeState(after, events.size() == 1 ? String.valueOf(events.get(0))
        : events.size() + " changes (the last " + events.get(events.size() - 1) + ")");
  }

  private CompletionStage<Void> storeState(CoordinatorState stateAfter, String what) {
    CoordinatorStateRecord record;
    synchronized (this) {
      if (closed) {
        return closedFailure();
      }
      if (confirmed == null) {
        return CompletableFuture.failedFuture(new IllegalStateException("Entity type [" + typeName + "]: the "
            + "coordinator state store was asked to store " + what + " before a load completed"));
      }
      // A new seq for every attempt, so that an earlier attempt of this write that timed out and
      // arrives late cannot win over this one.
      record = confirmed.followedBy(++lastSeq, stateAfter);
    }
    return unwrapped(write(record, () -> "the state after " + what).thenAccept(ok -> {
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
  public synchronized void close() {
    closed = true;
  }

  // ---- load

  private sealed interface ReadResult {}

  private record Found(CoordinatorStateRecord record) implements ReadResult {}

  private enum NothingStored implements ReadResult { INSTANCE }

  /** No majority answered; {@code why} says what happened instead. */
  private record NoMajority(String why) implements ReadResult {}

  private CompletionStage<Optional<CoordinatorStateRecord>> read(int attempt) {
    int attempts = settings.readRetries() + 1;
    long timeoutMillis = settings.readTimeout().toMillis();
    return replicatorKnowsMembers(System.nanoTime() + settings.readTimeout().toNanos())
        .thenCompose(known -> known ? readMajority() : CompletableFuture.<ReadResult>completedFuture(new NoMajority(
            "the local replicator did not learn of the cluster's members within " + timeoutMillis + " ms")))
        .thenCompose(result -> {
          if (result instanceof Found f) {
            return CompletableFuture.completedFuture(Optional.of(f.record()));
          } else if (result == NothingStored.INSTANCE) {
            return CompletableFuture.completedFuture(Optional.<CoordinatorStateRecord>empty());
          }
          String why = ((NoMajority) result).why();
          synchronized (this) {
            if (closed) {
              return closedFailure();
            }
          }
          if (attempt < attempts) {
            LOG.warn("Entity type [{}]: reading the coordinator state on {} from a majority of the replicas ({}) "
                + "failed: {} (attempt {} of {}); trying again", typeName, cluster.selfAddress(),
                majorityDescription(), why, attempt, attempts);
            return read(attempt + 1);
          }
          return CompletableFuture.failedFuture(new TimeoutException("Entity type [" + typeName + "]: could not "
              + "read the coordinator state on " + cluster.selfAddress() + " from a majority of the replicas ("
              + majorityDescription() + ") in " + attempts + " attempt(s): " + why + "; are that many nodes "
              + "unreachable, or not running shardkit's replicator?"));
        });
  }

  private CompletionStage<ReadResult> readMajority() {
    Replicator.ReadMajorityPlus consistency = new Replicator.ReadMajorityPlus(scala(settings.readTimeout()), 0,
        settings.majorityMinCap());
    return ask(new Replicator.Get<>(key, consistency), settings.readTimeout()).handle((reply, error) -> {
      if (error != null) {
        if (unwrap(error) instanceof AskTimeoutException) {
          return new NoMajority("the local replicator " + replicator.path() + " did not answer");
        }
        throw new CompletionException(unwrap(error));
      }
      if (reply instanceof Replicator.GetSuccess<?> success) {
        return new Found((CoordinatorStateRecord) success.dataValue());
      } else if (reply instanceof Replicator.NotFound<?>) {
        return NothingStored.INSTANCE;
      } else if (reply instanceof Replicator.GetFailure<?>) {
        return new NoMajority("timed out after " + settings.readTimeout().toMillis() + " ms");
      }
      throw new IllegalStateException("Entity type [" + typeName + "]: unexpected answer to reading the coordinator "
          + "state: " + reply);
    });
  }

  /**
   * A replicator that has not yet heard of the other members treats a majority read as a local
   * one and would find nothing: before reading, wait (up to the deadline) until it counts at least
   * the Up members of the role that the cluster knows. False if it did not catch up in time.
   */
  private CompletionStage<Boolean> replicatorKnowsMembers(long deadlineNanos) {
    int expected = upMembersOfRole();
    return Patterns.ask(replicator, Replicator.getReplicaCount(), settings.readTimeout())
        .thenCompose(reply -> {
          if (((Replicator.ReplicaCount) reply).n() >= expected) {
            return CompletableFuture.completedFuture(true);
          }
          if (System.nanoTime() + MEMBERSHIP_POLL.toNanos() > deadlineNanos) {
            return CompletableFuture.completedFuture(false);
          }
          CompletableFuture<Boolean> next = new CompletableFuture<>();
          system.scheduler().scheduleOnce(MEMBERSHIP_POLL, () -> replicatorKnowsMembers(deadlineNanos)
              .whenComplete((v, e) -> {
                if (e != null) {
                  next.completeExceptionally(e);
                } else {
                  next.complete(v);
                }
              }), system.executionContext());
          return next;
        })
        .exceptionally(e -> {
          if (unwrap(e) instanceof AskTimeoutException) {
            return false;
          }
          throw new CompletionException(unwrap(e));
        });
  }

  private CompletionStage<CoordinatorState> takeOver(Optional<CoordinatorStateRecord> loaded) {
    CoordinatorStateRecord record;
    synchronized (this) {
      if (closed) {
        return closedFailure();
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
            + "{} proxy(ies), {} shard home(s) (version {}); taken over as term {}", typeName, cluster.selfAddress(),
            state.regions().size(), state.proxies().size(), state.shards().size(), loaded.get().version(),
            record.version().term());
      } else {
        LOG.info("Entity type [{}]: no coordinator state stored yet (a majority of the replicas has none); "
            + "coordinator on {} starts empty as term {}", typeName, cluster.selfAddress(), record.version().term());
      }
      return state;
    });
  }

  // ---- write

  private CompletionStage<Void> write(CoordinatorStateRecord record, Supplier<String> what) {
    Replicator.WriteMajorityPlus consistency = new Replicator.WriteMajorityPlus(scala(settings.writeTimeout()), 0,
        settings.majorityMinCap());
    Replicator.Update<CoordinatorStateRecord> update = new Replicator.Update<>(key, record, consistency,
        existing -> {
          // Runs in the replicator, on its local replica. Something greater there means another
          // coordinator took over after this one: refuse rather than let merge keep its record and
          // report our write as done.
          if (existing.compareTo(record) > 0) {
            throw new IllegalStateException(superseded(existing, record));
          }
          return record;
        });
    if (LOG.isDebugEnabled()) {
      LOG.debug("Entity type [{}]: writing {} as version {}", typeName, what.get(), record.version());
    }
    return ask(update, settings.writeTimeout()).handle((reply, error) -> {
      LOG.debug("Entity type [{}]: the write of version {} was answered with {}", typeName, record.version(),
          error != null ? error : reply);
      if (error != null) {
        Throwable cause = unwrap(error);
        if (cause instanceof AskTimeoutException) {
          throw new CompletionException(new TimeoutException("Entity type [" + typeName + "]: shardkit's replicator "
              + replicator.path() + " did not answer the write of " + what.get() + "; is it stopped?"));
        }
        throw new CompletionException(cause);
      }
      if (reply instanceof Replicator.UpdateSuccess<?>) {
        return null;
      } else if (reply instanceof Replicator.UpdateTimeout<?>) {
        throw new CompletionException(new TimeoutException("Entity type [" + typeName + "]: " + what.get()
            + " (version " + record.version() + ") was not confirmed by a majority of the replicas ("
            + majorityDescription() + ") within " + settings.writeTimeout().toMillis() + " ms. It may have reached "
            + "some of them, which is harmless: a retry writes it again under a newer version"));
      } else if (reply instanceof Replicator.ModifyFailure<?> failure) {
        throw new CompletionException(failure.cause());
      }
      throw new CompletionException(new IllegalStateException("Entity type [" + typeName + "]: unexpected answer "
          + "to writing " + what.get() + ": " + reply));
    });
  }

  private String superseded(CoordinatorStateRecord existing, CoordinatorStateRecord mine) {
    return "Entity type [" + typeName + "]: the coordinator state was taken over by another coordinator (version "
        + existing.version() + ") after this one (version " + mine.version() + "), so this one's writes are "
        + "refused. Two coordinators of the type ran at once, e.g. in a network partition that no downing "
        + "provider resolved; this coordinator should stop";
  }

  // ---- helpers

  private CompletionStage<Object> ask(Object message, Duration consistencyTimeout) {
    // The replicator answers by itself when the consistency timeout expires; the ask's own
    // timeout only catches a replicator that does not answer at all.
    return Patterns.ask(replicator, message, consistencyTimeout.multipliedBy(2).plusSeconds(1));
  }

  /**
   * E.g. "needs 3 of the 3 replica nodes with role [backend]", counted as the replicator counts
   * them, from this node's view of the cluster: itself, and every other member of the role that
   * was Up and is not yet exiting or removed (unreachable and downed ones included).
   */
  private String majorityDescription() {
    int n = 1;
    for (Member m : cluster.state().getMembers()) {
      MemberStatus status = m.status();
      boolean counted = status == MemberStatus.up() || status == MemberStatus.leaving() || status == MemberStatus.down();
      if (counted && ofRole(m) && !m.address().equals(cluster.selfAddress())) {
        n++;
      }
    }
    int needed = Math.min(n, Math.max(n / 2 + 1, settings.majorityMinCap()));
    return "needs " + needed + " of the " + n + " replica node(s) " + role.map(r -> "with role [" + r + "]")
        .orElse("of the cluster") + ", majority-min-cap " + settings.majorityMinCap();
  }

  /** The Up members of the role, this node included: the replicas a caught-up replicator knows. */
  private int upMembersOfRole() {
    int n = 0;
    for (Member m : cluster.state().getMembers()) {
      if (m.status() == MemberStatus.up() && ofRole(m)) {
        n++;
      }
    }
    return n;
  }

  private boolean ofRole(Member m) {
    return role.map(m::hasRole).orElse(true);
  }

  private <T> CompletionStage<T> closedFailure() {
    return CompletableFuture.failedFuture(new IllegalStateException("Entity type [" + typeName + "]: the "
        + "coordinator state store was closed (its coordinator stopped)"));
  }

  /**
   * The same outcome, failed with the cause itself rather than the {@link CompletionException}
   * that composed stages wrap it in, so the coordinator's log shows our message first.
   */
  private static <T> CompletionStage<T> unwrapped(CompletionStage<T> stage) {
    CompletableFuture<T> result = new CompletableFuture<>();
    stage.whenComplete((value, error) -> {
      if (error != null) {
        result.completeExceptionally(unwrap(error));
      } else {
        result.complete(value);
      }
    });
    return result;
  }

  private static Throwable unwrap(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private static FiniteDuration scala(Duration d) {
    return FiniteDuration.create(d.toMillis(), TimeUnit.MILLISECONDS);
  }
}
