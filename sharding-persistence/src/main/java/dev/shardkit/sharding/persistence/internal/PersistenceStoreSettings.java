package dev.shardkit.sharding.persistence.internal;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import dev.shardkit.sharding.internal.StartupWarnings;
import java.time.Duration;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;

/**
 * The settings of the persistence stores, from {@code shardkit.sharding.persistence} (see this
 * module's {@code reference.conf}). Both stores share the plugins, the timeout and schema
 * creation; each has its own {@link Retention}.
 *
 * @param journalPluginId config path of the journal plugin
 * @param snapshotPluginId config path of the snapshot store plugin
 * @param readJournalPluginId config path of the read journal of that journal, with which
 *     {@code RemoveShardingData} finds the remembered entities' persistence ids
 * @param coordinator snapshots and deletion of the coordinator state
 * @param rememberEntities snapshots and deletion of each shard's remembered entities
 *     ({@code remember-entities.*})
 * @param storeTimeout how long one load or write may take
 * @param createSchema whether to create the JDBC tables if they are missing
 * @param keepAliveInterval how long a loaded coordinator may write nothing before its store writes
 *     a keep-alive
 */
public record PersistenceStoreSettings(String journalPluginId, String snapshotPluginId, String readJournalPluginId,
    Retention coordinator, Retention rememberEntities, Duration storeTimeout, boolean createSchema,
    Duration keepAliveInterval) {
  public static final String PATH = "shardkit.sharding.persistence";
  /** The journal class of pekko-persistence-jdbc, the only one whose tables the store can create. */
  static final String JDBC_JOURNAL_CLASS = "org.apache.pekko.persistence.jdbc.journal.JdbcAsyncWriteJournal";
  /** The read journal provider of pekko-persistence-jdbc; its {@code write-plugin} names its journal. */
  static final String JDBC_READ_JOURNAL_CLASS = "org.apache.pekko.persistence.jdbc.query.JdbcReadJournalProvider";

  /**
   * How often a journal writes a snapshot of its whole state, and how much history it keeps.
   *
   * @param snapshotAfter events between snapshots
   * @param keepNrOfBatches batches of {@code snapshotAfter} events kept behind the latest snapshot
   */
  public record Retention(int snapshotAfter, int keepNrOfBatches) {
    /** A snapshot every {@code snapshotAfter} events, and older events and snapshots deleted. */
    RetentionCriteria criteria() {
      return RetentionCriteria.snapshotEvery(snapshotAfter, keepNrOfBatches).withDeleteEventsOnSnapshot();
    }
  }

  /**
   * @param root the actor system's whole config (plugin ids are paths in it)
   * @throws IllegalArgumentException naming the key, if a setting is missing or out of range or a
   *     plugin id names no plugin
   */
  public static PersistenceStoreSettings fromConfig(Config root) {
    Config c;
    try {
      c = root.getConfig(PATH);
    } catch (ConfigException e) {
      throw new IllegalArgumentException(PATH + " is missing or not an object: " + e.getMessage(), e);
    }
    try {
      PersistenceStoreSettings s = new PersistenceStoreSettings(c.getString("journal-plugin-id"),
          c.getString("snapshot-plugin-id"), c.getString("read-journal-plugin-id"),
          new Retention(c.getInt("snapshot-after"), c.getInt("keep-nr-of-batches")),
          new Retention(c.getInt("remember-entities.snapshot-after"), c.getInt("remember-entities.keep-nr-of-batches")),
          c.getDuration("store-timeout"), c.getBoolean("create-schema"), c.getDuration("keep-alive-interval"));
      s.requirePlugin(root, "journal-plugin-id", s.journalPluginId);
      s.requirePlugin(root, "snapshot-plugin-id", s.snapshotPluginId);
      s.requirePlugin(root, "read-journal-plugin-id", s.readJournalPluginId);
      return s;
    } catch (ConfigException e) {
      throw new IllegalArgumentException("Invalid " + PATH + " setting: " + e.getMessage(), e);
    }
  }

  /**
   * The settings of this node's stores, checked as {@code ClusterSharding.start} needs them: also
   * that the journal's JDBC driver can be loaded ({@link #requireJdbcDriver}). Logs the warnings
   * of {@link DatabaseChecks} once per node.
   *
   * @throws IllegalArgumentException as {@link #fromConfig} and {@link #requireJdbcDriver} do
   */
  public static PersistenceStoreSettings forNode(ActorSystem<?> system) {
    Config root = system.settings().config();
    PersistenceStoreSettings settings = fromConfig(root);
    settings.requireJdbcDriver(root, ((ExtendedActorSystem) Adapter.toClassic(system)).dynamicAccess().classLoader());
    StartupWarnings.get(system).warnOnce(DatabaseChecks.warnings(root, settings));
    return settings;
  }

  public PersistenceStoreSettings {
    require(journalPluginId != null && !journalPluginId.isBlank(), "journal-plugin-id must be set");
    require(snapshotPluginId != null && !snapshotPluginId.isBlank(), "snapshot-plugin-id must be set");
    require(readJournalPluginId != null && !readJournalPluginId.isBlank(), "read-journal-plugin-id must be set");
    requireValid(coordinator, "");
    requireValid(rememberEntities, "remember-entities.");
    require(storeTimeout != null && !storeTimeout.isNegative() && !storeTimeout.isZero(),
        "store-timeout must be positive, got " + storeTimeout);
    require(keepAliveInterval != null && !keepAliveInterval.isNegative() && !keepAliveInterval.isZero(),
        "keep-alive-interval must be positive, got " + keepAliveInterval);
  }

  private static void requireValid(Retention retention, String prefix) {
    require(retention != null, prefix + "snapshot-after and " + prefix + "keep-nr-of-batches must be set");
    require(retention.snapshotAfter() >= 1, prefix + "snapshot-after must be at least 1, got "
        + retention.snapshotAfter());
    require(retention.keepNrOfBatches() >= 1, prefix + "keep-nr-of-batches must be at least 1, got "
        + retention.keepNrOfBatches());
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(PATH + "." + message);
    }
  }

  private void requirePlugin(Config root, String key, String pluginId) {
    boolean found;
    try {
      found = root.hasPath(pluginId) && root.getConfig(pluginId).hasPath("class");
    } catch (ConfigException e) {
      found = false;
    }
    require(found, key + " = \"" + pluginId + "\" names no plugin: there is no config object with a 'class' "
        + "at that path");
  }

  /** Whether {@link #createSchema} applies: the journal is pekko-persistence-jdbc's. */
  public boolean journalIsJdbc(Config root) {
    return JDBC_JOURNAL_CLASS.equals(root.getConfig(journalPluginId).getString("class"));
  }

  /**
   * Checks that the JDBC driver of the journal's database can be loaded, when the journal is
   * pekko-persistence-jdbc's and its configuration names a driver (in
   * {@code pekko-persistence-jdbc.shared-databases.<use-shared-db>.db.driver}, or the plugin's own
   * {@code slick.db.driver}). sharding-persistence brings no driver, not even H2's for its default
   * database; without this check the first store call would fail deep inside the journal, and the
   * coordinator would retry it for ever.
   *
   * @param loader the class loader that loads the journal (the actor system's)
   * @throws IllegalArgumentException naming the driver, the setting, and the artifact to add
   */
  public void requireJdbcDriver(Config root, ClassLoader loader) {
    if (!journalIsJdbc(root)) {
      return;
    }
    String db = databasePath(root, journalPluginId);
    if (!root.hasPath(db + ".driver")) {
      return;
    }
    String driver = root.getString(db + ".driver");
    try {
      Class.forName(driver, false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      String add = switch (driver) {
        case "org.h2.Driver" -> "add com.h2database:h2 to the application's dependencies for the default "
            + "database, an H2 file (sharding-persistence does not bring it), or point the store at your own "
            + "database (docs/state-stores.md)";
        case "org.postgresql.Driver" -> "add org.postgresql:postgresql to the application's dependencies";
        default -> "add the artifact of that driver to the application's dependencies";
      };
      throw new IllegalArgumentException("The JDBC driver " + driver + " of the journal of " + PATH + " (" + db
          + ".driver) is not on the classpath: " + add, e);
    }
  }

  /**
   * Where the database settings ({@code url}, {@code driver}, {@code user}, {@code password}) of a
   * pekko-persistence-jdbc plugin are: {@code pekko-persistence-jdbc.shared-databases.<use-shared-db>.db}
   * for a plugin on a shared database, else the plugin's own {@code slick.db}.
   *
   * @param pluginId the config path of a journal or snapshot plugin of pekko-persistence-jdbc
   */
  static String databasePath(Config root, String pluginId) {
    Config plugin = root.getConfig(pluginId);
    return plugin.hasPath("use-shared-db")
        ? "pekko-persistence-jdbc.shared-databases." + plugin.getString("use-shared-db") + ".db"
        : pluginId + ".slick.db";
  }

  /**
   * Checks that the read journal reads the journal the stores write to, as far as its config says
   * (pekko-persistence-jdbc's names it in {@code write-plugin}); otherwise {@code RemoveShardingData}
   * would look for remembered entities in another database and find none.
   *
   * @throws IllegalArgumentException naming both settings, if they do not match
   */
  public void requireReadJournalOfJournal(Config root) {
    Config plugin = root.getConfig(readJournalPluginId);
    if (JDBC_READ_JOURNAL_CLASS.equals(plugin.getString("class")) && plugin.hasPath("write-plugin")
        && !plugin.getString("write-plugin").equals(journalPluginId)) {
      throw new IllegalArgumentException(PATH + ".read-journal-plugin-id = \"" + readJournalPluginId
          + "\" reads the journal \"" + plugin.getString("write-plugin") + "\" (its write-plugin), but "
          + PATH + ".journal-plugin-id = \"" + journalPluginId + "\"; set read-journal-plugin-id to the read "
          + "journal of \"" + journalPluginId + "\" (for pekko-persistence-jdbc's own \"jdbc-journal\" that is "
          + "\"jdbc-read-journal\")");
    }
  }
}
