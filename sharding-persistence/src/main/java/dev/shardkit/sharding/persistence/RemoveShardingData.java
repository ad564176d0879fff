package dev.shardkit.sharding.persistence;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.persistence.internal.PersistenceIdRemover;
import dev.shardkit.sharding.persistence.internal.PersistenceStoreSettings;
import dev.shardkit.sharding.persistence.internal.ShardingDataKind;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;

/**
 * Deletes the sharding data that this module keeps for the named entity types: every event and
 * snapshot of their coordinators ({@code shardkit.sharding.state-store-mode = persistence}) and of
 * their shards' remembered entities ({@code remember-entities-store = persistence}). For a cluster
 * that cannot start because that data is corrupt or was written by an incompatible version.
 *
 * <pre>
 * java -cp &lt;the application's classpath&gt; dev.shardkit.sharding.persistence.RemoveShardingData \
 *     --force &lt;entity type&gt; [&lt;entity type&gt; ...]
 * </pre>
 *
 * <p>It reads the application's config ({@code application.conf}, or {@code -Dconfig.file=...})
 * for the journal, snapshot store and read journal under {@code shardkit.sharding.persistence},
 * and starts a local (not clustered) actor system with them. The remembered entities are stored
 * per shard, so their persistence ids are looked up: every id of the read journal's
 * {@code currentPersistenceIds} that starts with {@link ShardingPersistenceIds#entitiesPrefix}
 * (which no other type's ids start with). Without {@code --force} it only says what it would
 * delete and why that is dangerous, and deletes nothing. Deleting is safe to repeat.
 */
public final class RemoveShardingData {
  /** Everything was deleted (or there was nothing). */
  public static final int EXIT_OK = 0;
  /** Some data could not be deleted (the database is unreachable, for one); the output says why. */
  public static final int EXIT_FAILED = 1;
  /** Wrong arguments, or no {@code --force}: nothing was touched. */
  public static final int EXIT_NOT_RUN = 2;

  private static final String CLASS = RemoveShardingData.class.getName();
  private static final String FORCE = "--force";

  private RemoveShardingData() {}

  public static void main(String[] args) {
    System.exit(run(Arrays.asList(args), ConfigFactory.load(), System.out));
  }

  /**
   * The tool without {@link System#exit}: parses {@code args}, deletes with {@code --force}, and
   * prints what it did to {@code out}.
   *
   * @param config the application's config (the journal and snapshot plugins)
   * @return {@link #EXIT_OK}, {@link #EXIT_FAILED} or {@link #EXIT_NOT_RUN}
   */
  public static int run(List<String> args, Config config, PrintStream out) {
    boolean force = false;
    Set<String> types = new LinkedHashSet<>();
    for (String arg : args) {
      if (arg.equals(FORCE)) {
        force = true;
      } else if (arg.startsWith("-")) {
        out.println("Unknown option " + arg + ".");
        usage(out);
        return EXIT_NOT_RUN;
      } else {
        try {
          types.add(EntityTypeKey.create(Object.class, arg).name());
        } catch (IllegalArgumentException e) {
          out.println("Not an entity type name: [" + arg + "]: " + e.getMessage());
          return EXIT_NOT_RUN;
        }
      }
    }
    if (types.isEmpty()) {
      out.println("No entity type named.");
      usage(out);
      return EXIT_NOT_RUN;
    }
    PersistenceStoreSettings settings;
    try {
      settings = PersistenceStoreSettings.fromConfig(config);
      settings.requireReadJournalOfJournal(config);
    } catch (IllegalArgumentException e) {
      out.println("Cannot run: " + e.getMessage());
      return EXIT_NOT_RUN;
    }
    if (!force) {
      warn(types, settings, out);
      return EXIT_NOT_RUN;
    }
    return delete(types, settings, config, out);
  }

  private static void usage(PrintStream out) {
    out.println("Usage: java -cp <the application's classpath> " + CLASS + " " + FORCE
        + " <entity type> [<entity type> ...]");
    out.println("Deletes the coordinator state (shardkit.sharding.state-store-mode = persistence) and the "
        + "remembered entities");
    out.println("(shardkit.sharding.remember-entities-store = persistence) of the named entity types, from the "
        + "journal and snapshot");
    out.println("store configured under shardkit.sharding.persistence in the application's config "
        + "(application.conf, or");
    out.println("-Dconfig.file=...). Without " + FORCE + " it deletes nothing and says what it would delete.");
  }

  private static void warn(Set<String> types, PersistenceStoreSettings settings, PrintStream out) {
    out.println("This would delete, from journal [" + settings.journalPluginId() + "] and snapshot store ["
        + settings.snapshotPluginId() + "]:");
    for (String type : types) {
      for (ShardingDataKind kind : ShardingDataKind.ALL) {
        out.println("  entity type [" + type + "]: " + kind.description() + " (persistenceId ["
            + kind.describeIds(type) + "])");
      }
    }
    out.println("The remembered entities' persistence ids (one per shard) are looked up with read journal ["
        + settings.readJournalPluginId() + "].");
    out.println();
    out.println("This is dangerous:");
    out.println("  - Run it only while the whole cluster is stopped. A coordinator that is running keeps writing, "
        + "and one that");
    out.println("    starts afterwards does not know where the running nodes' shards live, so a shard could be "
        + "started twice.");
    out.println("  - Where every shard lives is forgotten: the next coordinator starts empty and learns it only "
        + "from the regions");
    out.println("    that register with it.");
    out.println("  - With remember-entities, the remembered entities are forgotten too: they are not started "
        + "again until a");
    out.println("    message arrives for them.");
    out.println("It is meant for a cluster that cannot start because this data is corrupt or was written by an "
        + "incompatible");
    out.println("version.");
    out.println();
    out.println("Nothing was deleted. To delete, stop the whole cluster and run again with " + FORCE + ":");
    out.println("  java -cp <the application's classpath> " + CLASS + " " + FORCE + " " + String.join(" ", types));
  }

  private static int delete(Set<String> types, PersistenceStoreSettings settings, Config config, PrintStream out) {
    // Local, so the tool joins no cluster and binds no port; only the persistence plugins are
    // needed, as the defaults that PersistenceIdRemover uses.
    Config local = ConfigFactory.parseString("pekko.actor.provider = local\n"
        + "pekko.extensions = []\n"
        + "pekko.coordinated-shutdown.exit-jvm = off\n")
        .withFallback(ConfigFactory.parseMap(Map.of("pekko.persistence.journal.plugin", settings.journalPluginId(),
            "pekko.persistence.snapshot-store.plugin", settings.snapshotPluginId())))
        .withFallback(config);
    ActorSystem system = ActorSystem.create("shardkit-remove-sharding-data", local);
    // Listing persistence ids; or recovery of the highest sequence number, deleting the snapshots,
    // deleting the events.
    Duration timeout = settings.storeTimeout().multipliedBy(3);
    List<String> failures = new ArrayList<>();
    try {
      out.println("Deleting from journal [" + settings.journalPluginId() + "] and snapshot store ["
          + settings.snapshotPluginId() + "]:");
      for (String type : types) {
        for (ShardingDataKind kind : ShardingDataKind.ALL) {
          String what = "entity type [" + type + "]: " + kind.description();
          try {
            List<String> ids = kind.persistenceIds(Adapter.toTyped(system), settings, type).toCompletableFuture()
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (ids.isEmpty()) {
              out.println("  " + what + ": nothing stored");
            }
            for (String id : ids) {
              out.println("  " + what + ", persistenceId [" + id + "]: " + describe(remove(system, id, timeout)));
            }
          } catch (ExecutionException e) {
            failures.add(what);
            out.println("  " + what + ": FAILED: " + e.getCause().getMessage());
          } catch (TimeoutException e) {
            failures.add(what);
            out.println("  " + what + ": FAILED: no answer within " + timeout.toMillis() + " ms (3 x "
                + "shardkit.sharding.persistence.store-timeout); is the database reachable?");
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      out.println("Interrupted; some data may not have been deleted.");
      return EXIT_FAILED;
    } finally {
      system.terminate();
      try {
        system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        out.println("(the tool's actor system did not stop cleanly: " + e + ")");
      }
    }
    if (!failures.isEmpty()) {
      out.println("Not everything was deleted (" + String.join("; ", failures) + "). Fix the cause and run again; "
          + "deleting again is safe.");
      return EXIT_FAILED;
    }
    out.println("Done.");
    return EXIT_OK;
  }

  private static PersistenceIdRemover.Removed remove(ActorSystem system, String persistenceId, Duration timeout)
      throws ExecutionException, TimeoutException, InterruptedException {
    CompletableFuture<PersistenceIdRemover.Removed> result = new CompletableFuture<>();
    system.actorOf(PersistenceIdRemover.props(persistenceId, result));
    return result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static String describe(PersistenceIdRemover.Removed removed) {
    return removed.highestSequenceNr() == 0 ? "no events were stored; deleted any snapshots"
        : "deleted events up to sequence number " + removed.highestSequenceNr() + " and all snapshots";
  }
}
