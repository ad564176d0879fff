package dev.shardkit.sharding.persistence.internal;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.persistence.jdbc.testkit.javadsl.SchemaUtils;

/**
 * Creates the JDBC journal's tables (and the snapshot table, which the same script creates) if
 * they are missing, once per actor system and journal: every store asks, the first runs the
 * script, the rest wait for it. A failed attempt (the database is away) is forgotten, so the next
 * store call tries again.
 */
public final class SchemaCreation implements Extension {
  private static final ExtensionId<SchemaCreation> ID = new ExtensionId<>() {
    @Override
    public SchemaCreation createExtension(ActorSystem<?> system) {
      return new SchemaCreation(system);
    }
  };

  private final ActorSystem<?> system;
  private final Map<String, CompletableFuture<Done>> attempts = new HashMap<>();
  private final Set<String> toldNotJdbc = new HashSet<>();

  private SchemaCreation(ActorSystem<?> system) {
    this.system = system;
  }

  public static SchemaCreation get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  /**
   * What a store calls before its first journal starts: {@link #ensure} when {@code create-schema}
   * is on and the journal is pekko-persistence-jdbc's, otherwise nothing. That create-schema does
   * not apply to another journal is logged once per journal, not once per store (there is a store
   * per shard).
   */
  public Supplier<CompletionStage<Done>> forStores(PersistenceStoreSettings settings) {
    boolean create = settings.createSchema() && settings.journalIsJdbc(system.settings().config());
    if (settings.createSchema() && !create) {
      synchronized (this) {
        if (toldNotJdbc.add(settings.journalPluginId())) {
          system.log().info("shardkit.sharding.persistence.create-schema is on, but journal [{}] is not "
              + "pekko-persistence-jdbc's: its tables are not created by shardkit", settings.journalPluginId());
        }
      }
    }
    if (!create) {
      return () -> CompletableFuture.completedFuture(Done.getInstance());
    }
    return () -> ensure(settings.journalPluginId());
  }

  /**
   * Completes when the tables of the journal at {@code journalPluginId} exist. The script is
   * pekko-persistence-jdbc's {@code CREATE ... IF NOT EXISTS} for the journal's database
   * profile.
   */
  public synchronized CompletionStage<Done> ensure(String journalPluginId) {
    CompletableFuture<Done> attempt = attempts.get(journalPluginId);
    if (attempt == null || attempt.isCompletedExceptionally()) {
      attempt = new CompletableFuture<>();
      attempts.put(journalPluginId, attempt);
      CompletableFuture<Done> current = attempt;
      try {
        SchemaUtils.createIfNotExists(journalPluginId, system).whenComplete((done, error) -> {
          if (error == null) {
            current.complete(Done.getInstance());
          } else {
            current.completeExceptionally(error);
          }
        });
      } catch (RuntimeException e) {
        // Looking up the database happens before the script runs and throws here, not in the stage.
        current.completeExceptionally(e);
      }
    }
    return attempt;
  }
}
