package dev.shardkit.sharding.persistence.internal;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;

/**
 * The settings of the persistence store, from {@code shardkit.sharding.persistence} (see this
 * module's {@code reference.conf}).
 *
 * @param journalPluginId config path of the journal plugin
 * @param snapshotPluginId config path of the snapshot store plugin
 * @param snapshotAfter events between snapshots
 * @param keepNrOfBatches batches of {@code snapshotAfter} events kept behind the latest snapshot
 * @param storeTimeout how long one load or store may take
 * @param createSchema whether to create the JDBC tables if they are missing
 */
public record PersistenceStoreSettings(String journalPluginId, String snapshotPluginId, int snapshotAfter,
    int keepNrOfBatches, Duration storeTimeout, boolean createSchema) {
  public static final String PATH = "shardkit.sharding.persistence";
  /** The journal class of pekko-persistence-jdbc, the only one whose tables the store can create. */
  static final String JDBC_JOURNAL_CLASS = "org.apache.pekko.persistence.jdbc.journal.JdbcAsyncWriteJournal";

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
          c.getString("snapshot-plugin-id"), c.getInt("snapshot-after"), c.getInt("keep-nr-of-batches"),
          c.getDuration("store-timeout"), c.getBoolean("create-schema"));
      s.requirePlugin(root, "journal-plugin-id", s.journalPluginId);
      s.requirePlugin(root, "snapshot-plugin-id", s.snapshotPluginId);
      return s;
    } catch (ConfigException e) {
      throw new IllegalArgumentException("Invalid " + PATH + " setting: " + e.getMessage(), e);
    }
  }

  public PersistenceStoreSettings {
    require(journalPluginId != null && !journalPluginId.isBlank(), "journal-plugin-id must be set");
    require(snapshotPluginId != null && !snapshotPluginId.isBlank(), "snapshot-plugin-id must be set");
    require(snapshotAfter >= 1, "snapshot-after must be at least 1, got " + snapshotAfter);
    require(keepNrOfBatches >= 1, "keep-nr-of-batches must be at least 1, got " + keepNrOfBatches);
    require(storeTimeout != null && !storeTimeout.isNegative() && !storeTimeout.isZero(),
        "store-timeout must be positive, got " + storeTimeout);
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
}
