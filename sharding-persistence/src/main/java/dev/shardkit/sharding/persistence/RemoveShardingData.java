package dev.shardkit.sharding.persistence;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.persistence.internal.CoordinatorWriteQuery;
import dev.shardkit.sharding.persistence.internal.LastCoordinatorWrite;
import dev.shardkit.sharding.persistence.internal.PersistenceIdRemover;
import dev.shardkit.sharding.persistence.internal.PersistenceStoreSettings;
import dev.shardkit.sharding.persistence.internal.ShardingDataKind;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.jspecify.annotations.Nullable;

/**
 * Deletes the sharding data that this module keeps for the named entity types: every event and
 * snapshot of their coordinators ({@code shardkit.sharding.state-store-mode = persistence}) and of
 * their shards' remembered entities ({@code remember-entities-store = persistence}). For a cluster
 * that cannot start because that data is corrupt or was written by an incompatible version.
 *
 * <pre>
 * java -cp &lt;the application's classpath&gt; dev.shardkit.sharding.persistence.RemoveShardingData \
 *     --force [--quiet-period=60s] [--even-if-live] &lt;entity type&gt; [&lt;entity type&gt; ...]
 * </pre>
 *
 * <p>{@code --help} (or {@code -h}) prints the options and exit codes and touches nothing.
 *
 * <p>It reads the application's config ({@code application.conf}, or {@code -Dconfig.file=...})
 * for the journal, snapshot store and read journal under {@code shardkit.sharding.persistence},
 * and starts a local (not clustered) actor system with them. The remembered entities are stored
 * per shard, so their persistence ids are looked up: every id of the read journal's
 * {@code currentPersistenceIds} that starts with {@link ShardingPersistenceIds#entitiesPrefix}
 * (which no other type's ids start with). Without {@code --force} it only says what it would
 * delete and why that is dangerous, and deletes nothing. Deleting is safe to repeat.
 *
 * <p><b>A running cluster is refused.</b> Before deleting anything, it reads each named type's
 * last coordinator write ({@link LastCoordinatorWrite}): its time (the journal's write time; with
 * pekko-persistence-jdbc the writing node's clock) and the node that wrote it. If any was written
 * within the quiet period ({@code --quiet-period}, else
 * {@code shardkit.sharding.persistence.remove-sharding-data.quiet-period}, 60 s by default), or
 * its time is unknown or ahead of this machine's clock, it prints those writes, deletes nothing
 * and exits with {@link #EXIT_LIVE}; {@code --even-if-live} (only with {@code --force}) deletes
 * anyway, after printing them. A running coordinator writes at least every 1.5 x
 * {@code shardkit.sharding.persistence.keep-alive-interval}, with a keep-alive when it has nothing
 * else to write, so the quiet period must be more than twice that interval: a shorter one is
 * refused with {@link #EXIT_NOT_RUN}, naming both settings.
 */
public final class RemoveShardingData {
  /** Everything was deleted (or there was nothing), or {@code --help} was asked for. */
  public static final int EXIT_OK = 0;
  /**
   * Some data could not be read or deleted (the database is unreachable, for one); the output
   * says why. Nothing is deleted if the last coordinator writes could not be read.
   */
  public static final int EXIT_FAILED = 1;
  /**
   * Wrong arguments or settings (a quiet period not above twice the keep-alive interval, for
   * one), or no {@code --force}: nothing was touched.
   */
  public static final int EXIT_NOT_RUN = 2;
  /**
   * A named type's coordinator wrote within the quiet period (or when is unknown): the cluster
   * may be running, and nothing was deleted. The output names each such write's time and node.
   */
  public static final int EXIT_LIVE = 3;

  /** The config key of the default quiet period. */
  public static final String QUIET_PERIOD_KEY = PersistenceStoreSettings.PATH + ".remove-sharding-data.quiet-period";

  private static final String KEEP_ALIVE_KEY = PersistenceStoreSettings.PATH + ".keep-alive-interval";
  private static final String CLASS = RemoveShardingData.class.getName();
  private static final String FORCE = "--force";
  private static final String EVEN_IF_LIVE = "--even-if-live";
  private static final String QUIET_PERIOD = "--quiet-period=";
  private static final Set<String> HELP = Set.of("--help", "-h");

  private RemoveShardingData() {}

  public static void main(String[] args) {
    System.exit(run(Arrays.asList(args), ConfigFactory.load(), System.out));
  }

  /**
   * The tool without {@link System#exit}: parses {@code args}, deletes with {@code --force} unless
   * a coordinator wrote within the quiet period (then only with {@code --even-if-live} too), and
   * prints what it found and did to {@code out}.
   *
   * @param config the application's config (the journal and snapshot plugins, the quiet period)
   * @return {@link #EXIT_OK}, {@link #EXIT_FAILED}, {@link #EXIT_NOT_RUN} or {@link #EXIT_LIVE}
   */
  public static int run(List<String> args, Config config, PrintStream out) {
    if (args.stream().anyMatch(HELP::contains)) {
      help(out);
      return EXIT_OK;
    }
    boolean force = false;
    boolean evenIfLive = false;
    String quietPeriodArg = null;
    Set<String> types = new LinkedHashSet<>();
    for (String arg : args) {
      if (arg.equals(FORCE)) {
        force = true;
      } else if (arg.equals(EVEN_IF_LIVE)) {
        evenIfLive = true;
      } else if (arg.startsWith(QUIET_PERIOD)) {
        quietPeriodArg = arg.substring(QUIET_PERIOD.length());
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
    if (evenIfLive && !force) {
      out.println(EVEN_IF_LIVE + " only goes with " + FORCE + ": it deletes even the data of a cluster that may be "
          + "running.");
      usage(out);
      return EXIT_NOT_RUN;
    }
    PersistenceStoreSettings settings;
    Duration quietPeriod;
    try {
      settings = PersistenceStoreSettings.fromConfig(config);
      settings.requireReadJournalOfJournal(config);
      quietPeriod = quietPeriod(quietPeriodArg, config);
      requireAboveKeepAlives(quietPeriod, quietPeriodArg, settings);
    } catch (IllegalArgumentException e) {
      out.println("Cannot run: " + e.getMessage());
      return EXIT_NOT_RUN;
    }
    if (!force) {
      warn(types, settings, quietPeriod, out);
      return EXIT_NOT_RUN;
    }
    return checkAndDelete(types, settings, quietPeriod, evenIfLive, config, out);
  }

  /**
   * The {@code --quiet-period=} value if given, else the config's.
   *
   * @throws IllegalArgumentException naming the option or key, if it is not a positive duration
   */
  static Duration quietPeriod(@Nullable String arg, Config config) {
    String where = arg != null ? QUIET_PERIOD + arg : QUIET_PERIOD_KEY;
    Duration period;
    try {
      period = arg != null ? ConfigFactory.parseMap(Map.of("d", arg)).getDuration("d")
          : config.getDuration(QUIET_PERIOD_KEY);
    } catch (ConfigException e) {
      throw new IllegalArgumentException(where + " is not a duration such as 60s or 5m: " + e.getMessage(), e);
    }
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException(where + " must be positive, was " + period);
    }
    return period;
  }

  /**
   * A running coordinator writes at least every 1.5 keep-alive intervals plus a write's time, so
   * only a quiet period of more than two shows it stopped.
   *
   * @throws IllegalArgumentException naming both settings, if {@code quietPeriod} is not above
   *     twice {@code keep-alive-interval}
   */
  static void requireAboveKeepAlives(Duration quietPeriod, @Nullable String arg, PersistenceStoreSettings settings) {
    Duration keepAlive = settings.keepAliveInterval();
    if (quietPeriod.compareTo(keepAlive.multipliedBy(2)) <= 0) {
      String given = arg != null ? QUIET_PERIOD + arg : QUIET_PERIOD_KEY + " = " + seconds(quietPeriod);
      throw new IllegalArgumentException("the quiet period (" + given + ") must be more than twice " + KEEP_ALIVE_KEY
          + " (" + seconds(keepAlive) + "): a running coordinator with nothing to write writes a keep-alive only "
          + "every 1.5 x keep-alive-interval or so, and a shorter quiet period could take it for stopped");
    }
  }

  private static void usage(PrintStream out) {
    out.println("Usage: java -cp <the application's classpath> " + CLASS + " " + FORCE + " [" + QUIET_PERIOD
        + "60s] [" + EVEN_IF_LIVE + "] <entity type> [<entity type> ...]");
    out.println("Deletes the coordinator state (shardkit.sharding.state-store-mode = persistence) and the "
        + "remembered entities");
    out.println("(shardkit.sharding.remember-entities-store = persistence) of the named entity types, from the "
        + "journal and snapshot");
    out.println("store configured under shardkit.sharding.persistence in the application's config "
        + "(application.conf, or");
    out.println("-Dconfig.file=...). Without " + FORCE + " it deletes nothing and says what it would delete.");
    out.println("It refuses (deleting nothing) if a named type's coordinator wrote within the quiet period ("
        + QUIET_PERIOD + "...,");
    out.println("else " + QUIET_PERIOD_KEY + "): its cluster may be running. " + EVEN_IF_LIVE
        + " deletes even then.");
  }

  private static void help(PrintStream out) {
    usage(out);
    out.println();
    out.println("Options:");
    out.println("  " + FORCE + "              delete; without it nothing is deleted, and the output says what would be");
    out.println("  " + QUIET_PERIOD + "<duration>  how long a named type's coordinator must not have written (default: "
        + QUIET_PERIOD_KEY + ",");
    out.println("                       60s unless set); more than twice " + KEEP_ALIVE_KEY);
    out.println("  " + EVEN_IF_LIVE + "       with " + FORCE + ": delete even if a coordinator wrote within the quiet "
        + "period");
    out.println("  --help, -h           print this and touch nothing");
    out.println();
    out.println("Exit codes:");
    out.println("  " + EXIT_OK + "  everything was deleted (or there was nothing to delete), or --help");
    out.println("  " + EXIT_FAILED + "  some data could not be read or deleted; the output says why");
    out.println("  " + EXIT_NOT_RUN + "  wrong arguments or settings, or no " + FORCE + ": nothing was touched");
    out.println("  " + EXIT_LIVE + "  a named type's coordinator wrote within the quiet period: its cluster may be "
        + "running; nothing was deleted");
  }

  private static void warn(Set<String> types, PersistenceStoreSettings settings, Duration quietPeriod,
      PrintStream out) {
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
    out.println("With " + FORCE + " it first refuses if a named type's coordinator wrote within the last "
        + seconds(quietPeriod) + " (the quiet period):");
    out.println("a running coordinator with nothing else to write writes a keep-alive once it was quiet for "
        + seconds(settings.keepAliveInterval()) + " (" + KEEP_ALIVE_KEY + ").");
    out.println();
    out.println("Nothing was deleted. To delete, stop the whole cluster and run again with " + FORCE + ":");
    out.println("  java -cp <the application's classpath> " + CLASS + " " + FORCE + " " + String.join(" ", types));
  }

  private static int checkAndDelete(Set<String> types, PersistenceStoreSettings settings, Duration quietPeriod,
      boolean evenIfLive, Config config, PrintStream out) {
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
    try {
      int checked = check(system, types, settings, quietPeriod, evenIfLive, timeout, out);
      return checked != EXIT_OK ? checked : delete(system, types, settings, timeout, out);
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
  }

  /**
   * Prints each type's last coordinator write. {@link #EXIT_OK} if deleting may go on: every
   * coordinator was quiet for {@code quietPeriod}, or {@code evenIfLive}.
   */
  private static int check(ActorSystem system, Set<String> types, PersistenceStoreSettings settings,
      Duration quietPeriod, boolean evenIfLive, Duration timeout, PrintStream out) throws InterruptedException {
    out.println("Last coordinator writes (quiet period " + seconds(quietPeriod) + "; write times by the "
        + "clock of the node that wrote, with pekko-persistence-jdbc):");
    List<String> live = new ArrayList<>();
    List<String> unread = new ArrayList<>();
    for (String type : types) {
      String what = "entity type [" + type + "]";
      Optional<LastCoordinatorWrite> last;
      try {
        last = CoordinatorWriteQuery.lastWrite(Adapter.toTyped(system), settings, type, timeout)
            .toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException | TimeoutException e) {
        unread.add(type);
        out.println("  " + what + ": FAILED to read its coordinator's last write: " + failure(e, timeout));
        continue;
      }
      Instant now = Instant.now();
      if (last.isEmpty()) {
        out.println("  " + what + ": no coordinator event stored");
      } else if (last.get().quietFor(quietPeriod, now)) {
        out.println("  " + what + ": last written " + last.get().describe(now));
      } else {
        live.add(type);
        out.println("  " + what + ": last written " + last.get().describe(now) + ": WITHIN THE QUIET PERIOD");
      }
    }
    if (!unread.isEmpty() && !evenIfLive) {
      out.println("Nothing was deleted: without the last writes of " + String.join(", ", unread) + " it cannot tell "
          + "whether the cluster is running. Fix the cause and run again;");
      out.println("if the data cannot be read (corrupt, or written by a newer shardkit), make sure the whole cluster "
          + "is stopped and add " + EVEN_IF_LIVE + ".");
      return EXIT_FAILED;
    }
    if (live.isEmpty() && unread.isEmpty()) {
      return EXIT_OK;
    }
    List<String> reasons = new ArrayList<>();
    if (!live.isEmpty()) {
      reasons.add("the coordinator of " + String.join(", ", live) + " wrote within the last " + seconds(quietPeriod)
          + " (or when is unknown): its cluster may be running");
    }
    if (!unread.isEmpty()) {
      reasons.add("the last writes of " + String.join(", ", unread) + " could not be read");
    }
    String which = String.join("; ", reasons);
    if (evenIfLive) {
      out.println("Deleting anyway (" + EVEN_IF_LIVE + "), although " + which + ". A running coordinator would "
          + "go on with state the store no longer has.");
      return EXIT_OK;
    }
    out.println("Refused: " + which + ". Nothing was deleted.");
    out.println("Stop the whole cluster and run again once the quiet period has passed. If the cluster is "
        + "stopped and a clock is wrong,");
    out.println("or to delete the data of a running cluster, add " + EVEN_IF_LIVE + ".");
    return EXIT_LIVE;
  }

  private static int delete(ActorSystem system, Set<String> types, PersistenceStoreSettings settings,
      Duration timeout, PrintStream out) throws InterruptedException {
    List<String> failures = new ArrayList<>();
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
        } catch (ExecutionException | TimeoutException e) {
          failures.add(what);
          out.println("  " + what + ": FAILED: " + failure(e, timeout));
        }
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

  /** "60 s", "2.5 s": a quiet period in the tool's output. */
  private static String seconds(Duration d) {
    return (d.toMillis() % 1000 == 0 ? Long.toString(d.toSeconds()) : Double.toString(d.toMillis() / 1000.0)) + " s";
  }

  /** Why a deletion failed, as the tool prints it: the cause's message, or its class if it has none. */
  static String failure(Exception e, Duration timeout) {
    if (e instanceof TimeoutException) {
      return "no answer within " + timeout.toMillis() + " ms (3 x "
          + "shardkit.sharding.persistence.store-timeout); is the database reachable?";
    }
    Throwable cause = e.getCause() != null ? e.getCause() : e;
    String message = cause.getMessage();
    return message != null ? message : cause.getClass().getName();
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
