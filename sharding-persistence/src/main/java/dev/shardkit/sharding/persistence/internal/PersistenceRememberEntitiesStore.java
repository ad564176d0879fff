package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.persistence.ShardingPersistenceIds;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorSystem;
import org.jspecify.annotations.Nullable;

/**
 * The remembered entities of one shard, event-sourced with Pekko Persistence in an
 * {@link EntitiesJournal} under {@link ShardingPersistenceIds#entities}.
 *
 * <p>{@link #load()} completes with the ids a recovery of that journal gives. On
 * pekko-persistence-jdbc's tables (see {@link EntitiesLoadBatch}) it reads them together with the
 * other shards of the node that load at the same time, and starts no journal; elsewhere, and once
 * the journal runs, it asks the journal. {@link #update} writes one event for the whole batch and
 * completes once the journal confirmed it; the first update starts the journal (a
 * {@link JournalStoreActor} system actor, until {@link #close()}), which recovers from the
 * database before it writes, so it writes after the latest stored event. Either call fails with a
 * {@link PersistenceStoreException} naming the cause when the database cannot be reached (or
 * after {@code store-timeout}) or a stored record cannot be read; the store stays usable, and the
 * shard's retry after the database is back succeeds.
 */
public final class PersistenceRememberEntitiesStore implements RememberEntitiesStore {
  /** Actor names must be unique; the shard may start again here before this store stopped. */
  private static final AtomicLong INSTANCES = new AtomicLong();
  private static final String LOAD_FAILED = "could not load the remembered entities";

  private final ActorSystem<?> system;
  private final String persistenceId;
  /** Whose entities, for logs: {@code "entity type [T], shard [S]"}. */
  private final String subject;
  private final PersistenceStoreSettings settings;
  private final Optional<EntitiesLoadBatch.Reader> batch;
  /** The journal's actor's name, unique on this node. */
  private final String actorName;
  /** Started by the first update (or a load without {@link #batch}); null until then. */
  private @Nullable JournalStore<EntitiesJournal.Command> store;
  private boolean closed;

  /** @throws IllegalArgumentException if the type name or shard id cannot make a persistence id */
  public PersistenceRememberEntitiesStore(ActorSystem<?> system, String typeName, String shardId,
      PersistenceStoreSettings settings) {
    this.system = system;
    this.persistenceId = ShardingPersistenceIds.entities(typeName, shardId);
    this.subject = "entity type [" + typeName + "], shard [" + shardId + "]";
    this.settings = settings;
    this.batch = EntitiesLoadBatch.get(system).reader(settings);
    // Shard ids may hold any character; encoded, they make a valid actor name.
    this.actorName = "shardkit-entities-store-" + typeName + "-" + URLEncoder.encode(shardId, StandardCharsets.UTF_8)
        + "-" + INSTANCES.incrementAndGet();
  }

  @SuppressWarnings("unchecked")
  @Override
  public synchronized CompletionStage<Set<String>> load() {
    if (closed) {
      return CompletableFuture.failedFuture(closed(LOAD_FAILED));
    }
    if (store == null && batch.isPresent()) {
      return loadInBatch(batch.get());
    }
    return journal().ask(EntitiesJournal.GetIds::new, ids -> (Set<String>) ids, LOAD_FAILED);
  }

  private CompletionStage<Set<String>> loadInBatch(EntitiesLoadBatch.Reader reader) {
    CompletableFuture<Set<String>> result = new CompletableFuture<>();
    reader.load(persistenceId, subject).toCompletableFuture()
        .orTimeout(settings.storeTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete((state, error) -> {
          if (error == null) {
            result.complete(state.ids());
            return;
          }
          Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
          if (cause instanceof TimeoutException) {
            cause = new TimeoutException("no answer within shardkit.sharding.persistence.store-timeout ("
                + settings.storeTimeout().toMillis() + " ms)");
          }
          system.log().warn("Remember-entities store of {}: {}: {}; the shard retries with backoff", subject,
              LOAD_FAILED, PersistenceStoreException.describe(cause));
          result.completeExceptionally(PersistenceStoreException.of(LOAD_FAILED, capitalized(), cause));
        });
    return result;
  }

  /**
   * Writes {@code started} and {@code stopped} as one event. An update that would change nothing
   * (every started id is remembered already and no stopped one is: an empty update, or the retry
   * of a write whose confirmation was lost) is confirmed without a write.
   *
   * @throws IllegalArgumentException if a set is null, holds a null or empty id, or an id is in
   *     both sets
   */
  @Override
  public synchronized CompletionStage<Void> update(Set<String> started, Set<String> stopped) {
    StoredEntitiesChange change = StoredEntitiesChange.of(started, stopped);
    String what = "could not store the update of " + started.size() + " started and " + stopped.size()
        + " stopped entities";
    if (closed) {
      return CompletableFuture.failedFuture(closed(what));
    }
    return journal().ask((id, replyTo) -> new EntitiesJournal.Update(id, change, replyTo), done -> null, what);
  }

  /** The journal's store, started at the first call that needs it. */
  private JournalStore<EntitiesJournal.Command> journal() {
    if (store == null) {
      store = new JournalStore<>(system, settings, new JournalStoreActor.Spec<>("Remember-entities store of "
          + subject, capitalized(), "the shard", persistenceId,
          () -> EntitiesJournal.create(persistenceId, subject, settings)), actorName);
    }
    return store;
  }

  private PersistenceStoreException closed(String what) {
    return PersistenceStoreException.of(what, capitalized(), new IllegalStateException("the store was closed"));
  }

  private String capitalized() {
    return Character.toUpperCase(subject.charAt(0)) + subject.substring(1);
  }

  @Override
  public String describe() {
    return "event-sourced (persistenceId [" + persistenceId + "], journal [" + settings.journalPluginId()
        + "], snapshots in [" + settings.snapshotPluginId() + "] every "
        + settings.rememberEntities().snapshotAfter() + " updates"
        + (batch.isPresent() ? "; loaded together with the node's other starting shards)" : ")");
  }

  /** Stops the store's actor and its journal, so that the shard's next home is the only writer. */
  @Override
  public synchronized void close() {
    closed = true;
    if (store != null) {
      store.close();
    }
  }
}
