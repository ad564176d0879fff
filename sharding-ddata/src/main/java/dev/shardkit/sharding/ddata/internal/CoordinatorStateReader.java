package dev.shardkit.sharding.ddata.internal;

import dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord.Version;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.ddata.Key;

/**
 * Reads one entity type's coordinator state by majority, as a successor coordinator loads it:
 * the head, then every part it names, then the state of the first set of parts that is whole
 * ({@link CoordinatorStateHead#wholeParts}). Where no head is stored yet, or a head that took over
 * the previous build's single record has no whole parts, it reads that record
 * ({@link CoordinatorStateKey}), so a cluster that ran the build before the split keeps its state.
 * Reads only; taking over is the store's.
 */
public final class CoordinatorStateReader {
  /**
   * A state as stored: its version, and unless it is the previous build's single record, the
   * part versions that make it and their payloads (the directory's first).
   */
  public record Stored(Version version, CoordinatorState state, Optional<PartVersions> parts,
      List<byte[]> payloads) {}

  private final String typeName;
  private final ReplicaMajority majority;
  private final Function<String, ActorRef<Object>> refs;

  /**
   * @param refs resolves a ref's serialization format
   * @throws IllegalArgumentException if the type name is null or empty
   */
  public CoordinatorStateReader(String typeName, ReplicaMajority majority, Function<String, ActorRef<Object>> refs) {
    CoordinatorStateKey.of(typeName);
    this.typeName = typeName;
    this.majority = majority;
    this.refs = refs;
  }

  /**
   * The stored state, empty if none is. Fails like {@link ReplicaMajority#read}, or with an
   * {@link IllegalStateException} if the head's parts are not whole and it has nothing to fall
   * back on, or the parts cannot be decoded.
   */
  public CompletionStage<Optional<Stored>> read() {
    return majority.read(CoordinatorStateKeys.head(typeName), "the coordinator state's head").thenCompose(head -> {
      if (head.isEmpty()) {
        return readRecord();
      }
      List<Key<CoordinatorStatePart>> keys = new ArrayList<>();
      for (int i = 0; i < head.get().partsToRead(); i++) {
        keys.add(CoordinatorStateKeys.part(typeName, i));
      }
      return majority.readAll(keys, "the coordinator state's parts 0.." + (keys.size() - 1))
          .thenCompose(parts -> fromParts(head.get(), parts));
    });
  }

  private CompletionStage<Optional<Stored>> fromParts(CoordinatorStateHead head,
      List<Optional<CoordinatorStatePart>> parts) {
    Optional<PartVersions> whole = head.wholeParts(parts::get);
    if (whole.isEmpty()) {
      if (head.fallback().isEmpty()) {
        return readRecord();
      }
      return CompletableFuture.failedFuture(new IllegalStateException("Entity type [" + typeName + "]: the "
          + "coordinator state's head " + head.version() + " names parts of which a majority of the replicas holds "
          + "neither its own nor its fallback's versions (" + head.parts() + "; " + head.fallback().get() + "; found "
          + parts.stream().map(p -> p.map(r -> r.version().toString()).orElse("none")).toList() + ")"));
    }
    PartVersions versions = whole.get();
    List<byte[]> payloads = new ArrayList<>();
    for (int i = 0; i <= versions.shardParts(); i++) {
      Version wanted = versions.version(i);
      payloads.add(parts.get(i).flatMap(p -> p.payloadAt(wanted)).orElseThrow());
    }
    CoordinatorState state;
    try {
      state = PartitionedCoordinatorState.decode(payloads.get(0), payloads.subList(1, payloads.size()), refs);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(new IllegalStateException("Entity type [" + typeName + "]: the "
          + "coordinator state stored as " + versions + " cannot be read: " + e.getMessage(), e));
    }
    return CompletableFuture.completedFuture(Optional.of(new Stored(head.versionOf(versions), state,
        Optional.of(versions), payloads)));
  }

  private CompletionStage<Optional<Stored>> readRecord() {
    return majority.read(CoordinatorStateKey.of(typeName), "the coordinator state record of the build before the split")
        .thenApply(record -> record.map(r -> new Stored(r.version(), r.state(), Optional.empty(), List.of())));
  }
}
