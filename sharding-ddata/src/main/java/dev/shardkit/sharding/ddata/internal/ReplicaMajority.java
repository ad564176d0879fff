package dev.shardkit.sharding.ddata.internal;

import dev.shardkit.sharding.ddata.DDataSettings;
import dev.shardkit.sharding.internal.store.SameThreadStages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.ddata.Key;
import org.apache.pekko.cluster.ddata.ReplicatedData;
import org.apache.pekko.cluster.ddata.Replicator;
import org.apache.pekko.pattern.AskTimeoutException;
import org.apache.pekko.pattern.Patterns;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.concurrent.duration.FiniteDuration;

/**
 * Reads and writes keys of one of shardkit's replicators by majority, for one store (a
 * coordinator's, or a shard's remembered entities): what every ddata store shares.
 *
 * <p>Majorities are of at least {@code majority-min-cap} nodes (all if fewer), and leave out the
 * nodes that are exiting the cluster (Pekko's {@code ReadMajorityPlus}/{@code WriteMajorityPlus}
 * with nothing added): their copies are about to go, so a write they confirmed would not protect
 * the data, and when a store moves away from a leaving node, its successor's read does not wait
 * for a node that is shutting down. A majority read and an earlier majority write still share a
 * staying node (also when the writer was itself exiting: it counts itself, but of the S staying
 * nodes it needs at least (S + 1) / 2, and a read needs S / 2 + 1 of them).
 *
 * <p>Where the local replicator counts no replica but itself, a majority is this node, and
 * {@link #readAll} and {@link #writeToDisk} read and write locally: the same result, without the
 * aggregator actor (and its timer) that Pekko's replicator starts for every "majority plus"
 * read or write, one per key and call, whoever there is to ask.
 *
 * <p>A read first waits until the local replicator knows the cluster's members (a replicator that
 * does not yet know them reads only itself and finds nothing) and until the replicator runs on
 * every Up replica ({@link ReplicaPresence}: a node that has not started shardkit yet would drop
 * the read, which would then wait for its whole timeout), each up to {@code read-timeout}; a read
 * that times out is tried again up to {@code read-retries} times. A write waits in the same way
 * for the replicas' replicators (up to {@code write-timeout}); a write that times out fails at
 * once: it may have reached some replicas, and the store's caller retries it.
 *
 * <p>Thread-safe; {@link #close} makes later reads and retries fail with the store's message.
 */
public final class ReplicaMajority {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaMajority.class);
  /** How often a read or write checks again whether the replicas are ready for it. */
  private static final Duration READINESS_POLL = Duration.ofMillis(50);
  /**
   * How long to wait for a replica to say whether its replicator runs; one that has not answered
   * by then (unreachable, or slow) is left to the majority.
   */
  private static final Duration PRESENCE_TIMEOUT = Duration.ofSeconds(1);

  private final ActorSystem<?> system;
  private final Optional<String> role;
  private final DDataSettings settings;
  private final ActorRef replicator;
  private final ReplicaPresence presence;
  private final Cluster cluster;
  private final String subject;
  private final String closedMessage;
  private volatile boolean closed;

  /**
   * @param replicator shardkit's replicator for {@code role}, from {@link Replicators}
   * @param subject what the store serves, first in every message, e.g. "Entity type [Cart]"
   * @param closedMessage what a call on the closed store fails with, after the subject
   */
  public ReplicaMajority(ActorSystem<?> system, Optional<String> role, DDataSettings settings, ActorRef replicator,
      String subject, String closedMessage) {
    this.system = system;
    this.role = role;
    this.settings = settings;
    this.replicator = replicator;
    this.presence = Replicators.get(system).presenceOf(replicator);
    this.cluster = Cluster.get(Adapter.toClassic(system));
    this.subject = subject;
    this.closedMessage = closedMessage;
  }

  public Cluster cluster() {
    return cluster;
  }

  public DDataSettings settings() {
    return settings;
  }

  /** From now on, reads that are still retrying and calls that check {@link #isClosed} fail. */
  public void close() {
    closed = true;
  }

  public boolean isClosed() {
    return closed;
  }

  /** A stage failed with the store's "closed" error. */
  public <T> CompletionStage<T> closedFailure() {
    return CompletableFuture.failedFuture(new IllegalStateException(subject + ": " + closedMessage));
  }

  /** The consistency of every write: a majority with the minimum cap. */
  public Replicator.WriteConsistency writeConsistency() {
    return new Replicator.WriteMajorityPlus(scala(settings.writeTimeout()), 0, settings.majorityMinCap());
  }

  // ---- read

  private sealed interface ReadResult<T> {}

  private record Found<T>(T data) implements ReadResult<T> {}

  private record NothingStored<T>() implements ReadResult<T> {}

  /** No majority answered; {@code why} says what happened instead. */
  private record NoMajority<T>(String why) implements ReadResult<T> {}

  /**
   * The value of {@code key} merged from a majority of the replicas; empty if none of them has
   * one. Fails with a {@link TimeoutException} if no majority answered in {@code read-retries + 1}
   * attempts, or with the closed error if the store closed meanwhile.
   *
   * @param what the data, for messages, e.g. "the coordinator state"
   */
  public <T extends ReplicatedData> CompletionStage<Optional<T>> read(Key<T> key, String what) {
    return readAll(List.of(key), what).thenApply(values -> values.get(0));
  }

  /**
   * {@link #read} of several keys in one round: the replicas' readiness is checked once and every
   * key's read is sent at once, so a store that keeps its data under several keys waits for one
   * round trip to the replicas, not one per key. The values come in the order of {@code keys}.
   * An attempt in which some key had no majority is tried again for every key (reading again is
   * harmless); fails as {@link #read} does.
   *
   * @param what the data, for messages, e.g. "the remembered entities of shard 17"
   */
  public <T extends ReplicatedData> CompletionStage<List<Optional<T>>> readAll(List<? extends Key<T>> keys,
      String what) {
    return unwrapped(readAll(keys, what, 1));
  }

  private <T extends ReplicatedData> CompletionStage<List<Optional<T>>> readAll(List<? extends Key<T>> keys,
      String what, int attempt) {
    int attempts = settings.readRetries() + 1;
    return replicasReady(settings.readTimeout(), Purpose.READ)
        .thenCompose(ready -> ready.notReady().isEmpty() ? readMajorities(keys, what, ready.alone())
            : CompletableFuture.<ReadResult<List<Optional<T>>>>completedFuture(new NoMajority<>(
                ready.notReady().get())))
        .thenCompose(result -> {
          if (result instanceof Found<List<Optional<T>>> f) {
            return CompletableFuture.completedFuture(f.data());
          }
          String why = ((NoMajority<List<Optional<T>>>) result).why();
          if (closed) {
            return closedFailure();
          }
          if (attempt < attempts) {
            LOG.warn("{}: reading {} on {} from a majority of the replicas ({}) failed: {} (attempt {} of {}); "
                + "trying again", subject, what, cluster.selfAddress(), describe(), why, attempt, attempts);
            return readAll(keys, what, attempt + 1);
          }
          return CompletableFuture.failedFuture(new TimeoutException(subject + ": could not read " + what + " on "
              + cluster.selfAddress() + " from a majority of the replicas (" + describe() + ") in " + attempts
              + " attempt(s): " + why + "; are that many nodes unreachable, or not running shardkit's replicator?"));
        });
  }

  /**
   * Every key's majority read at once (local reads when this node is the only replica, which is
   * the same): all values (empty where nothing is stored), or why not.
   */
  private <T extends ReplicatedData> CompletionStage<ReadResult<List<Optional<T>>>> readMajorities(
      List<? extends Key<T>> keys, String what, boolean alone) {
    List<CompletableFuture<ReadResult<T>>> gets = new ArrayList<>(keys.size());
    for (Key<T> key : keys) {
      gets.add(readMajority(key, what, alone).toCompletableFuture());
    }
    return CompletableFuture.allOf(gets.toArray(CompletableFuture[]::new)).thenApply(done -> {
      List<Optional<T>> values = new ArrayList<>(gets.size());
      for (CompletableFuture<ReadResult<T>> get : gets) {
        ReadResult<T> result = get.join();
        if (result instanceof NoMajority<T> no) {
          return new NoMajority<>(no.why());
        }
        values.add(result instanceof Found<T> f ? Optional.of(f.data()) : Optional.empty());
      }
      return new Found<>(values);
    });
  }

  private <T extends ReplicatedData> CompletionStage<ReadResult<T>> readMajority(Key<T> key, String what,
      boolean alone) {
    Replicator.ReadConsistency consistency = alone ? Replicator.readLocal()
        : new Replicator.ReadMajorityPlus(scala(settings.readTimeout()), 0, settings.majorityMinCap());
    return ask(new Replicator.Get<>(key, consistency), settings.readTimeout()).handle((reply, error) -> {
      if (error != null) {
        if (unwrap(error) instanceof AskTimeoutException) {
          return new NoMajority<>("the local replicator " + replicator.path() + " did not answer");
        }
        throw new CompletionException(unwrap(error));
      }
      if (reply instanceof Replicator.GetSuccess<?> success) {
        @SuppressWarnings("unchecked")
        T data = (T) success.dataValue();
        return new Found<>(data);
      } else if (reply instanceof Replicator.NotFound<?>) {
        return new NothingStored<>();
      } else if (reply instanceof Replicator.GetFailure<?>) {
        return new NoMajority<>("timed out after " + settings.readTimeout().toMillis() + " ms");
      }
      throw new IllegalStateException(subject + ": unexpected answer to reading " + what + " (key " + key.id()
          + "): " + reply);
    });
  }

  /** What a readiness check is for: what it waits for, and whether it counts the replicas. */
  private enum Purpose {
    /** Waits until the local replicator knows the members, and counts them. */
    READ,
    /** Counts the replicas (to write locally when there is no other), waits for nothing more than a write. */
    DURABLE_WRITE,
    /** Waits for the other replicas' replicators only. */
    WRITE
  }

  /**
   * Whether the replicas are ready, and whether the local replicator counts no replica but itself.
   *
   * @param notReady empty when ready; otherwise why not, for the failure
   * @param alone the local replicator has no other replica, so a majority is this node: a read or
   *     write by majority would read or write only here. Pekko's replicator still runs a read or
   *     write "majority plus" through an aggregator actor of its own then; a local one gives the
   *     same result without it. Only counted for {@link Purpose#READ} and
   *     {@link Purpose#DURABLE_WRITE}; false otherwise.
   */
  private record Readiness(Optional<String> notReady, boolean alone) {}

  /**
   * Waits, up to {@code limit}, until the replicas are ready: for a read, the local replicator
   * counts at least the Up members of the role that the cluster knows (one that does not yet know
   * them treats a majority as itself); for a read or a write, none of those members has answered
   * that its replicator does not run yet.
   */
  private CompletionStage<Readiness> replicasReady(Duration limit, Purpose purpose) {
    return replicasReady(System.nanoTime() + limit.toNanos(), limit, purpose);
  }

  private CompletionStage<Readiness> replicasReady(long deadlineNanos, Duration limit, Purpose purpose) {
    List<Member> replicas = upMembersOfRole();
    CompletionStage<Integer> counted = purpose == Purpose.WRITE ? CompletableFuture.completedFuture(0)
        : SameThreadStages.of(Patterns.ask(replicator, Replicator.getReplicaCount(), remaining(deadlineNanos)))
            .thenApply(reply -> ((Replicator.ReplicaCount) reply).n());
    return counted
        .thenCompose(count -> {
          if (purpose == Purpose.READ && count < replicas.size()) {
            return CompletableFuture.completedFuture(new Readiness(Optional.of("the local replicator did not learn "
                + "of the cluster's members"), false));
          }
          boolean alone = count == 1;
          List<Member> others = replicas.stream().filter(m -> !m.address().equals(cluster.selfAddress())).toList();
          Duration answerWithin = remaining(deadlineNanos).compareTo(PRESENCE_TIMEOUT) < 0
              ? remaining(deadlineNanos) : PRESENCE_TIMEOUT;
          return presence.notRunning(others, answerWithin).thenApply(missing -> missing.isEmpty()
              ? new Readiness(Optional.empty(), alone)
              : new Readiness(Optional.of("shardkit's replicator " + replicator.path().name() + " does not run yet "
                  + "on " + missing.stream().map(m -> m.address().toString()).toList() + " (no entity type of "
                  + role.map(r -> "role [" + r + "]").orElse("this cluster") + " started there yet?)"), false));
        })
        .exceptionally(e -> {
          if (unwrap(e) instanceof AskTimeoutException) {
            return new Readiness(Optional.of("the local replicator " + replicator.path() + " did not answer"), false);
          }
          throw new CompletionException(unwrap(e));
        })
        .thenCompose(readiness -> {
          if (readiness.notReady().isEmpty() || System.nanoTime() + READINESS_POLL.toNanos() > deadlineNanos) {
            return CompletableFuture.completedFuture(new Readiness(readiness.notReady().map(why -> why + " within "
                + limit.toMillis() + " ms"), readiness.alone()));
          }
          CompletableFuture<Readiness> next = new CompletableFuture<>();
          system.scheduler().scheduleOnce(READINESS_POLL, () -> replicasReady(deadlineNanos, limit, purpose)
              .whenComplete((v, e) -> {
                if (e != null) {
                  next.completeExceptionally(e);
                } else {
                  next.complete(v);
                }
              }), system.executionContext());
          return next;
        });
  }

  /** What is left until the deadline, at least a millisecond (an ask needs a positive timeout). */
  private static Duration remaining(long deadlineNanos) {
    return Duration.ofNanos(Math.max(deadlineNanos - System.nanoTime(), 1_000_000));
  }

  // ---- write

  /**
   * Sends {@code update} (built with {@link #writeConsistency}) and completes once a majority
   * confirmed it. Fails with a {@link TimeoutException} if it was not confirmed in time (the
   * message ends with {@code onTimeout}, which says why retrying is safe), or with the cause of a
   * {@link Replicator.ModifyFailure} (an exception the update's modify function threw).
   *
   * @param what the data written, for messages, e.g. "the state after ... (version 2.1)"
   */
  public CompletionStage<Void> write(Replicator.Update<?> update, Supplier<String> what, String onTimeout) {
    return unwrapped(whenReadyToWrite(Purpose.WRITE, what, alone -> sendWrite(update, what, onTimeout)));
  }

  /**
   * Runs {@code send} (told whether this node is the only replica) once the replicas are ready for
   * a write; fails without sending if they are not.
   */
  private CompletionStage<Void> whenReadyToWrite(Purpose purpose, Supplier<String> what,
      Function<Boolean, CompletionStage<Void>> send) {
    if (LOG.isDebugEnabled()) {
      LOG.debug("{}: writing {}", subject, what.get());
    }
    return replicasReady(settings.writeTimeout(), purpose).thenCompose(ready -> ready.notReady().isPresent()
        ? CompletableFuture.failedFuture(new TimeoutException(subject + ": " + what.get() + " was not sent: "
            + ready.notReady().get() + ". A retry writes it again"))
        : send.apply(ready.alone()));
  }

  /**
   * Majority writes, with {@link #writeConsistency}, of keys the replicator keeps on disk, one
   * update per key, all sent at once after one check that the replicas are ready; completes once
   * every one is confirmed and also in this node's durable store, which is what a caller that
   * reports them durable needs. Fails as {@link #write} does if one of them fails (the others may
   * have been written), and with a {@link TimeoutException} if the durable store did not confirm
   * the follow-up write (below) in time.
   *
   * <p>Why more than {@link #write}: the replicator confirms a majority write when its time is up
   * if enough other replicas confirmed, whether or not its own durable store has written it yet;
   * with no other replica (a one-node cluster) that is always the case, so under load a
   * confirmed change could still be queued for the disk, and be lost when the node stops. A
   * write confirmed sooner than {@code write-timeout} after it was sent was confirmed by the
   * durable store itself (the replicator's timer cannot have fired yet). When one was slower, a
   * local write that changes nothing follows, of one of the keys: the durable store writes in the
   * order it is asked, so once it confirmed that one, every change before it is on disk.
   *
   * @param empty the keys' value where they have none
   * @param changes each key's change, in the order to send them; at least one
   * @param what the change of a key, for messages
   * @throws IllegalArgumentException if {@code changes} is empty
   */
  public <T extends ReplicatedData> CompletionStage<Void> writeToDisk(T empty, Map<Key<T>, Function<T, T>> changes,
      Function<Key<T>, String> what, String onTimeout) {
    if (changes.isEmpty()) {
      throw new IllegalArgumentException(subject + ": a write to disk needs at least one key's change");
    }
    Key<T> first = changes.keySet().iterator().next();
    Supplier<String> all = () -> changes.keySet().stream().map(what).collect(Collectors.joining("; "));
    long sent = System.nanoTime();
    return unwrapped(whenReadyToWrite(Purpose.DURABLE_WRITE, all, alone -> {
      Replicator.WriteConsistency consistency = alone ? Replicator.writeLocal() : writeConsistency();
      // A local write has no timeout of the replicator's: the durable store answers once it has
      // written. It waits as long as a majority write and its follow-up below would.
      Duration patience = askTimeout(settings.writeTimeout()).plus(alone ? settings.writeTimeout() : Duration.ZERO);
      List<CompletableFuture<Void>> writes = new ArrayList<>(changes.size());
      changes.forEach((key, modify) -> writes.add(sendWrite(new Replicator.Update<>(key, empty, consistency,
          modify::apply), () -> what.apply(key), onTimeout, patience).toCompletableFuture()));
      return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).thenCompose(done -> {
        // A local write is confirmed by the durable store itself, once it has written it.
        if (alone || System.nanoTime() - sent < settings.writeTimeout().toNanos()) {
          return CompletableFuture.completedFuture(done);
        }
        return sendWrite(new Replicator.Update<>(first, empty, Replicator.writeLocal(), set -> set),
            () -> all.get() + " (on this node's disk)", onTimeout);
      });
    }));
  }

  private CompletionStage<Void> sendWrite(Replicator.Update<?> update, Supplier<String> what, String onTimeout) {
    return sendWrite(update, what, onTimeout, askTimeout(settings.writeTimeout()));
  }

  /** @param patience how long to wait for the replicator's answer, which it gives by itself in time */
  private CompletionStage<Void> sendWrite(Replicator.Update<?> update, Supplier<String> what, String onTimeout,
      Duration patience) {
    return SameThreadStages.of(Patterns.ask(replicator, update, patience)).<Void>handle((reply, error) -> {
      if (LOG.isDebugEnabled()) {
        LOG.debug("{}: the write of {} was answered with {}", subject, what.get(), error != null ? error : reply);
      }
      if (error != null) {
        Throwable cause = unwrap(error);
        if (cause instanceof AskTimeoutException) {
          throw new CompletionException(new TimeoutException(subject + ": shardkit's replicator "
              + replicator.path() + " did not answer the write of " + what.get() + " within "
              + patience.toMillis() + " ms; is it stopped, or its durable store (the "
              + "disk) that far behind? " + onTimeout));
        }
        throw new CompletionException(cause);
      }
      if (reply instanceof Replicator.UpdateSuccess<?>) {
        return null;
      } else if (reply instanceof Replicator.UpdateTimeout<?>) {
        throw new CompletionException(new TimeoutException(subject + ": " + what.get() + " was not confirmed by a "
            + "majority of the replicas (" + describe() + ") within " + settings.writeTimeout().toMillis()
            + " ms. " + onTimeout));
      } else if (reply instanceof Replicator.ModifyFailure<?> failure) {
        throw new CompletionException(failure.cause());
      } else if (reply instanceof Replicator.StoreFailure<?>) {
        throw new CompletionException(new IllegalStateException(subject + ": " + what.get() + " could not be "
            + "stored on this node's disk by shardkit's replicator " + replicator.path() + " (see its error in the "
            + "log)"));
      }
      throw new CompletionException(new IllegalStateException(subject + ": unexpected answer to writing "
          + what.get() + ": " + reply));
    });
  }

  // ---- helpers

  private CompletionStage<Object> ask(Object message, Duration consistencyTimeout) {
    // The replicator answers by itself when the consistency timeout expires; the ask's own
    // timeout only catches a replicator that does not answer at all.
    return SameThreadStages.of(Patterns.ask(replicator, message, askTimeout(consistencyTimeout)));
  }

  private static Duration askTimeout(Duration consistencyTimeout) {
    return consistencyTimeout.multipliedBy(2).plusSeconds(1);
  }

  /**
   * E.g. "needs 3 of the 3 replica node(s) with role [backend], majority-min-cap 5", counted as
   * the replicator counts them, from this node's view of the cluster: itself, and every other
   * member of the role that was Up and is not yet exiting or removed (unreachable and downed ones
   * included).
   */
  public String describe() {
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
  private List<Member> upMembersOfRole() {
    List<Member> up = new ArrayList<>();
    for (Member m : cluster.state().getMembers()) {
      if (m.status() == MemberStatus.up() && ofRole(m)) {
        up.add(m);
      }
    }
    return up;
  }

  private boolean ofRole(Member m) {
    return role.map(m::hasRole).orElse(true);
  }

  /**
   * The same outcome, failed with the cause itself rather than the {@link CompletionException}
   * that composed stages wrap it in, so the caller's log shows our message first.
   */
  public static <T> CompletionStage<T> unwrapped(CompletionStage<T> stage) {
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
