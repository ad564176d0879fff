package dev.shardkit.sharding.persistence.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.persistence.jdbc.testkit.javadsl.SchemaUtils;

/**
 * Creates the JDBC journal's tables (and the snapshot table, which the same script creates) if
 * they are missing, once per actor system and journal: every entity type's store asks, the first
 * runs the script, the rest wait for it. A failed attempt (the database is away) is forgotten, so
 * the next store call tries again.
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

  private SchemaCreation(ActorSystem<?> system) {
    this.system = system;
  }

  public static SchemaCreation get(ActorSystem<?> system) {
    return ID.apply(system);
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
