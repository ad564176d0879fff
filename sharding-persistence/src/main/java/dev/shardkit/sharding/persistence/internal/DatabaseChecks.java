package dev.shardkit.sharding.persistence.internal;

import com.typesafe.config.Config;
import dev.shardkit.sharding.internal.StartupChecks;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Decides which warnings the database of the persistence stores deserves when a store starts on
 * a node: a pure function of the configuration and the stores' settings, whose results
 * {@link dev.shardkit.sharding.internal.StartupWarnings} logs once per node.
 *
 * <p>Both warnings apply only to a node of several ({@link StartupChecks#multiNode}: more than one
 * seed node, or a seed node that is not this node), and only to pekko-persistence-jdbc plugins
 * (the journal and the snapshot store; each database once):
 *
 * <ul>
 *   <li>an <b>H2 file</b> ({@code url} starting with {@code jdbc:h2:file:}, the default): each
 *       machine has its own file, so coordinators on different machines would read different
 *       states, and the database is reachable by whoever can open the file or its
 *       {@code AUTO_SERVER} port;
 *   <li>an <b>empty password</b> ({@code password} set to ""): anyone who reaches the database
 *       can change where shards live.
 * </ul>
 *
 * <p>Each warning names the setting's full path.
 */
public final class DatabaseChecks {
  /** The snapshot store of pekko-persistence-jdbc, whose database is configured like its journal's. */
  static final String JDBC_SNAPSHOT_CLASS = "org.apache.pekko.persistence.jdbc.snapshot.JdbcSnapshotStore";
  private static final String H2_FILE = "jdbc:h2:file:";

  private DatabaseChecks() {}

  /**
   * The warnings for the stores' databases, empty if there are none or the node is not one of
   * several.
   *
   * @param root the actor system's whole configuration
   * @param settings the persistence stores' settings, read from {@code root}
   */
  public static List<String> warnings(Config root, PersistenceStoreSettings settings) {
    if (!StartupChecks.multiNode(root)) {
      return List.of();
    }
    Set<String> databases = new LinkedHashSet<>();
    if (hasClass(root, settings.journalPluginId(), PersistenceStoreSettings.JDBC_JOURNAL_CLASS)) {
      databases.add(PersistenceStoreSettings.databasePath(root, settings.journalPluginId()));
    }
    if (hasClass(root, settings.snapshotPluginId(), JDBC_SNAPSHOT_CLASS)) {
      databases.add(PersistenceStoreSettings.databasePath(root, settings.snapshotPluginId()));
    }
    List<String> warnings = new ArrayList<>();
    for (String db : databases) {
      String url = root.hasPath(db + ".url") ? root.getString(db + ".url") : "";
      if (url.toLowerCase(Locale.ROOT).startsWith(H2_FILE)) {
        warnings.add("The shardkit persistence store's database is an H2 file (" + db + ".url = \"" + url
            + "\") in a cluster of several nodes (" + StartupChecks.SEED_NODES + "): each machine writes its own "
            + "file, so a coordinator that moves to another machine loads another state, and anyone who can open "
            + "the file or its AUTO_SERVER port can change it. Point " + db + ".url at a database all nodes share "
            + "(PostgreSQL; see docs/state-stores.md)");
      }
      if (root.hasPath(db + ".password") && root.getString(db + ".password").isEmpty()) {
        warnings.add("The shardkit persistence store's database has an empty password (" + db + ".password) in a "
            + "cluster of several nodes (" + StartupChecks.SEED_NODES + "): whoever reaches the database can change "
            + "where shards live. Set " + db + ".password, e.g. from the environment (password = ${?SHARDKIT_DB_PASSWORD}; "
            + "see docs/security.md)");
      }
    }
    return List.copyOf(warnings);
  }

  private static boolean hasClass(Config root, String pluginId, String className) {
    return root.hasPath(pluginId + ".class") && className.equals(root.getString(pluginId + ".class"));
  }
}
