package dev.shardkit.sharding.ddata.internal;

import dev.shardkit.sharding.ddata.DDataSettings;
import dev.shardkit.sharding.internal.util.ShardIds;
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
import dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord.Version;
import java.util.ArrayList;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.UniqueAddress;
import org.apache.pekko.cluster.ddata.Replicator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one entity type's coordinator state in shardkit's replicator for the type's role, split
 * over several keys ({@link CoordinatorStateHead} explains the split and why a load always gets a
 * state that was stored as a whole): a small head and parts, the directory of regions and proxies
 * and the shards by a stable hash of their id. Loaded with majority reads
 * ({@link CoordinatorStateReader}) and taken over with majority writes of every part and then the
 * head before the coordinator serves; each batch of events rewrites only the parts it touches and
 * then the head, each with a majority write, so a write costs about one part (at most
 * {@link PartitionedCoordinatorState#PART_LIMIT} bytes, twice: as now and as last confirmed) however
 * many shards there are. {@link ReplicaMajority} says how majorities are counted and reads retried.
 *
 * <p>The coordinator's term is the term of its take-over head, which is greater than every term
 * its majority read saw, so greater than that of every coordinator that served before it. A write
 * that meets a greater head or part on this node's replica fails with
 * {@link CoordinatorStateSupersededException}; one that does not (the replica has not seen the
 * take-over yet) may be confirmed, but it loses every merge against the successor's records, and
 * what its coordinator tells regions carries a term they no longer act on.
 *
 * <p>A write that times out fails at once: it may have reached some replicas, which is harmless
 * (it loses to every later record, and the parts it wrote still hold what the confirmed head
 * names), and the coordinator retries it with back-off, which stores the same state again under a
 * new version, so retrying is idempotent.
 *
 * <p>A cluster that ran the build before the split stored one record under
 * {@link CoordinatorStateKey}; the first load of this build finds no head, reads that record and
 * takes it over into parts, so the state migrates on the coordinator's first move. The state lives
 * in memory only either way: a full restart of the cluster starts empty.
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
  private final ReplicaMajority majority;
  private final CoordinatorStateReader reader;
  private final Function<ActorRef<Object>, String> refs;
  private final String writer;

  // Guarded by this.
  /** This incarnation's last head a majority confirmed; null until the take-over is confirmed. */
  private @Nullable CoordinatorStateHead confirmed;
  /** The state that head names, as parts. */
  private PartitionedCoordinatorState confirmedState;
  /** The payload of each part that head names, the directory's first. */
  private List<byte[]> confirmedPayloads;
  private long lastSeq;
  /** The highest term this incarnation tried to take over with, confirmed or not. */
  private long lastTerm;

  /**
   * @param replicator shardkit's replicator for {@code role}, from {@link Replicators}
   * @throws IllegalArgumentException if the type name is null or empty
   */
  public DDataCoordinatorStateStore(ActorSystem<?> system, String typeName, Optional<String> role,
      DDataSettings settings, org.apache.pekko.actor.ActorRef replicator) {
    this.typeName = typeName;
    this.role = role;
    this.settings = settings;
    this.majority = new ReplicaMajority(system, role, settings, replicator, "Entity type [" + typeName + "]",
        "the coordinator state store was closed (its coordinator stopped)");
    ActorRefResolver resolver = ActorRefResolver.get(system);
    this.reader = new CoordinatorStateReader(typeName, majority, resolver::resolveActorRef);
    this.refs = resolver::toSerializationFormat;
    UniqueAddress self = majority.cluster().selfUniqueAddress();
    this.writer = self.address() + "#" + self.longUid() + "/" + INCARNATIONS.incrementAndGet();
  }

  @Override
  public CompletionStage<LoadedCoordinatorState> load() {
    if (majority.isClosed()) {
      return majority.closedFailure();
    }
    return ReplicaMajority.unwrapped(reader.read().thenCompose(this::takeOver));
  }

  /** One write for the whole batch: the parts it touches as they are after it, then the head. */
  @Override
  public CompletionStage<Void> store(List<CoordinatorEvent> events, CoordinatorState stateAfter) {
    try {
      // Refused here, with the event named, rather than by the serializer inside the replicator,
      // where the failure would only show as a timed-out write retried for ever.
      ShardIds.requireIn(events, "Entity type [" + typeName + "]: the ddata coordinator state store");
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(e);
    }
    String what = events.size() == 1 ? String.valueOf(events.get(0))
        : events.size() + " changes (the last " + events.get(events.size() - 1) + ")";
    Write write;
    synchronized (this) {
      if (majority.isClosed()) {
        return majority.closedFailure();
      }
      if (confirmed == null) {
        return CompletableFuture.failedFuture(new IllegalStateException("Entity type [" + typeName + "]: the "
            + "coordinator state store was asked to store " + what + " before a load completed"));
      }
      PartitionedCoordinatorState.Change change = confirmedState.after(events, stateAfter);
      // A new seq for every attempt, so that an earlier attempt of this write that timed out and
      // arrives late cannot win over this one.
      Version version = new Version(confirmed.version().term(), ++lastSeq, writer);
      write = Write.of(version, confirmed.version(), change.after(), change.touched(), confirmed.parts(),
          confirmedPayloads, refs);
    }
    return ReplicaMajority.unwrapped(write(write, "the state after " + what).thenAccept(ok -> {
      synchronized (this) {
        if (confirmed.compareTo(write.head()) < 0) {
          confirm(write);
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

  private CompletionStage<LoadedCoordinatorState> takeOver(Optional<CoordinatorStateReader.Stored> loaded) {
    Write write;
    synchronized (this) {
      if (majority.isClosed()) {
        return majority.closedFailure();
      }
      long seen = loaded.map(l -> l.version().term()).orElse(0L);
      Version version = new Version(Math.max(seen, lastTerm) + 1, 0, writer);
      lastTerm = version.term();
      CoordinatorState state = loaded.map(CoordinatorStateReader.Stored::state).orElse(CoordinatorState.empty());
      PartitionedCoordinatorState parts = PartitionedCoordinatorState.sized(state, refs);
      write = Write.of(version, loaded.map(CoordinatorStateReader.Stored::version).orElse(Version.NONE), parts,
          allParts(parts.shardParts()), loaded.flatMap(CoordinatorStateReader.Stored::parts).orElse(null),
          loaded.map(CoordinatorStateReader.Stored::payloads).orElse(List.of()), refs);
    }
    long term = write.head().version().term();
    return write(write, "the take-over as term " + term).thenApply(ok -> {
      synchronized (this) {
        confirm(write);
        lastSeq = 0;
      }
      CoordinatorState state = write.state().state();
      if (loaded.isPresent()) {
        LOG.info("Entity type [{}]: coordinator state loaded on {} from a majority of the replicas: {} region(s), "
            + "{} proxy(ies), {} shard home(s) (version {}{}); taken over as term {} in {} part(s)", typeName,
            majority.cluster().selfAddress(), state.regions().size(), state.proxies().size(), state.shards().size(),
            loaded.get().version(), loaded.get().parts().isPresent() ? "" : ", the single record of the build "
            + "before the split", term, write.state().shardParts() + 1);
      } else {
        LOG.info("Entity type [{}]: no coordinator state stored yet (a majority of the replicas has none); "
            + "coordinator on {} starts empty as term {}", typeName, majority.cluster().selfAddress(), term);
      }
      return new LoadedCoordinatorState(term, state);
    });
  }

  private static Set<Integer> allParts(int shardParts) {
    Set<Integer> all = new TreeSet<>();
    for (int i = 0; i <= shardParts; i++) {
      all.add(i);
    }
    return all;
  }

  // ---- write

  /**
   * One write: the part records to write and the head to write after them, with what they make
   * once confirmed.
   */
  private record Write(CoordinatorStateHead head, PartitionedCoordinatorState state, Map<Integer,
      CoordinatorStatePart> parts, List<byte[]> payloads) {

    /**
     * The write of {@code state} as {@code version}, rewriting the parts in {@code touched} (all
     * of them if a part outgrew its limit, the parts then doubled), each also carrying the part
     * as {@code confirmed} (null for none) named it, whose payloads are {@code confirmedPayloads}.
     */
    static Write of(Version version, Version basis, PartitionedCoordinatorState state, Set<Integer> touched,
        PartVersions confirmed, List<byte[]> confirmedPayloads, Function<ActorRef<Object>, String> refs) {
      Map<Integer, byte[]> written = new TreeMap<>();
      for (int i : touched) {
        written.put(i, state.payload(i, refs));
      }
      if (written.entrySet().stream().anyMatch(e -> e.getKey() > 0
          && e.getValue().length > PartitionedCoordinatorState.PART_LIMIT)) {
        state = state.resized(refs);
        written.clear();
        for (int i = 0; i <= state.shardParts(); i++) {
          written.put(i, state.payload(i, refs));
        }
      }
      PartVersions parts = confirmed == null || version.seq() == 0
          ? PartVersions.all(version, state.shardParts())
          : confirmed.with(version, state.shardParts(), written.keySet());
      Map<Integer, CoordinatorStatePart> records = new TreeMap<>();
      List<byte[]> payloads = new ArrayList<>();
      for (int i = 0; i <= state.shardParts(); i++) {
        byte[] now = written.get(i);
        payloads.add(now != null ? now : confirmedPayloads.get(i));
        if (now != null) {
          boolean hadPart = confirmed != null && i <= confirmed.shardParts();
          records.put(i, new CoordinatorStatePart(version, now, hadPart ? confirmed.version(i) : null,
              hadPart ? confirmedPayloads.get(i) : null));
        }
      }
      return new Write(new CoordinatorStateHead(version, basis, parts, confirmed), state, records, payloads);
    }
  }

  private void confirm(Write write) {
    confirmed = write.head();
    confirmedState = write.state();
    confirmedPayloads = write.payloads();
  }

  /** The parts, each with a majority write, and once all are confirmed, the head. */
  private CompletionStage<Void> write(Write write, String what) {
    Version version = write.head().version();
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    write.parts().forEach((index, part) -> parts.add(writePart(index, part, what).toCompletableFuture()));
    return ReplicaMajority.unwrapped(CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new))
        .thenCompose(done -> {
          Replicator.Update<CoordinatorStateHead> update = new Replicator.Update<>(
              CoordinatorStateKeys.head(typeName), write.head(), majority.writeConsistency(), existing -> {
                // Runs in the replicator, on its local replica. Something greater there means
                // another coordinator took over after this one: refuse rather than let merge keep
                // its head and report our write as done.
                if (existing.compareTo(write.head()) > 0) {
                  throw new CoordinatorStateSupersededException(superseded(existing.version(), version));
                }
                return write.head();
              });
          return majority.write(update, () -> "the head of " + what + " (version " + version + ", "
              + write.parts().size() + " part(s) rewritten)", "It may have reached some of them, which is "
              + "harmless: the parts still hold the confirmed state, and a retry writes it again under a newer "
              + "version");
        }));
  }

  private CompletionStage<Void> writePart(int index, CoordinatorStatePart part, String what) {
    Replicator.Update<CoordinatorStatePart> update = new Replicator.Update<>(
        CoordinatorStateKeys.part(typeName, index), part, majority.writeConsistency(), existing -> {
          // A part of a later term on the local replica: a successor took over (and rewrote every part).
          if (existing.version().compareTo(part.version()) > 0) {
            throw new CoordinatorStateSupersededException(superseded(existing.version(), part.version()));
          }
          return part;
        });
    return majority.write(update, () -> "part " + index + " of " + what + " (version " + part.version() + ", "
        + part.payload().length + " bytes)", "It may have reached some of them, which is harmless: the head is "
        + "written only once every part is confirmed, and a retry writes it again under a newer version");
  }

  private String superseded(Version existing, Version mine) {
    return "Entity type [" + typeName + "]: the coordinator state was taken over by another coordinator (version "
        + existing + ") after this one (version " + mine + "), so this one's writes are "
        + "refused. Two coordinators of the type ran at once, e.g. in a network partition that no downing "
        + "provider resolved; this coordinator loads again";
  }
}
