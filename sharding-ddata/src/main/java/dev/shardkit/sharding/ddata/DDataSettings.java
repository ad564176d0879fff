package dev.shardkit.sharding.ddata;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.shardkit.sharding.ddata.internal.CoordinatorStateKey;
import dev.shardkit.sharding.ddata.internal.GroupCommitDurableStore;
import dev.shardkit.sharding.ddata.internal.LmdbJvmOptions;
import dev.shardkit.sharding.ddata.internal.ShardEntitiesKeys;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Settings of the ddata stores (coordinator state and remembered entities), read from
 * {@code shardkit.sharding.ddata} (see this module's {@code reference.conf}). Immutable; one set
 * per actor system.
 */
public final class DDataSettings {
  private static final String PATH = "shardkit.sharding.ddata";

  private final int majorityMinCap;
  private final Duration writeTimeout;
  private final Duration readTimeout;
  private final int readRetries;
  private final Config replicator;
  private final Config lmdb;

  private DDataSettings(int majorityMinCap, Duration writeTimeout, Duration readTimeout, int readRetries,
      Config replicator, Config lmdb) {
    this.majorityMinCap = majorityMinCap;
    this.writeTimeout = writeTimeout;
    this.readTimeout = readTimeout;
    this.readRetries = readRetries;
    this.replicator = replicator;
    this.lmdb = lmdb;
  }

  /**
   * The settings under {@code shardkit.sharding.ddata} of the system's configuration.
   *
   * @throws IllegalArgumentException naming the key if a value is missing, malformed or out of range
   */
  public static DDataSettings create(ActorSystem<?> system) {
    Config config = system.settings().config();
    if (!config.hasPath(PATH)) {
      throw new IllegalArgumentException("Missing configuration " + PATH + "; is sharding-ddata's reference.conf "
          + "on the classpath (a shaded jar must merge reference.conf files)?");
    }
    return fromConfig(config.getConfig(PATH));
  }

  /**
   * Settings from a config object shaped like {@code shardkit.sharding.ddata}.
   *
   * @throws IllegalArgumentException naming the key if a value is missing, malformed or out of range
   */
  public static DDataSettings fromConfig(Config c) {
    try {
      int minCap = c.getInt("majority-min-cap");
      require(minCap >= 1, "majority-min-cap must be at least 1, got " + minCap);
      Duration write = c.getDuration("write-timeout");
      require(isPositive(write), "write-timeout must be positive, got " + write);
      Duration read = c.getDuration("read-timeout");
      require(isPositive(read), "read-timeout must be positive, got " + read);
      int retries = c.getInt("read-retries");
      require(retries >= 0, "read-retries must not be negative, got " + retries);
      Config replicator = c.getConfig("replicator");
      for (String key : replicator.getStringList("durable.keys")) {
        require(!matchesCoordinatorKeys(key), "replicator.durable.keys must not match the coordinator state's keys ("
            + CoordinatorStateKey.PREFIX + "<type name>), but [" + key + "] does; that state is kept in memory only");
      }
      Config lmdb = c.getConfig("remember-entities.lmdb");
      require(!lmdb.getString("dir").isBlank(), "remember-entities.lmdb.dir must not be empty");
      long mapSize = lmdb.getBytes("map-size");
      require(mapSize > 0, "remember-entities.lmdb.map-size must be positive, got " + mapSize);
      lmdb.getBoolean("group-commit");
      if (!lmdb.getString("write-behind-interval").equalsIgnoreCase("off")) {
        Duration writeBehind = lmdb.getDuration("write-behind-interval");
        require(isPositive(writeBehind), "remember-entities.lmdb.write-behind-interval must be off or positive, got "
            + writeBehind);
      }
      return new DDataSettings(minCap, write, read, retries, replicator, lmdb);
    } catch (ConfigException e) {
      throw new IllegalArgumentException("Invalid " + PATH + " configuration: " + e.getMessage(), e);
    }
  }

  private static boolean matchesCoordinatorKeys(String durableKey) {
    if (durableKey.endsWith("*")) {
      String prefix = durableKey.substring(0, durableKey.length() - 1);
      // Either the pattern covers every coordinator key, or some type name makes a key match it.
      return CoordinatorStateKey.PREFIX.startsWith(prefix) || prefix.startsWith(CoordinatorStateKey.PREFIX);
    }
    return durableKey.startsWith(CoordinatorStateKey.PREFIX);
  }

  private static boolean isPositive(Duration d) {
    return !d.isNegative() && !d.isZero();
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(PATH + "." + message);
    }
  }

  /** The least number of replicas a majority read or write needs (default 5), all if fewer. */
  public int majorityMinCap() {
    return majorityMinCap;
  }

  /** How long a write waits for a majority (default 5s). */
  public Duration writeTimeout() {
    return writeTimeout;
  }

  /** How long a read waits for a majority (default 5s). */
  public Duration readTimeout() {
    return readTimeout;
  }

  /** How often a timed-out read is tried again before the load fails (default 3). */
  public int readRetries() {
    return readRetries;
  }

  /** The settings of shardkit's replicators, in the layout of {@code pekko.cluster.distributed-data}. */
  public Config replicatorConfig() {
    return replicator;
  }

  /**
   * Where remembered entities are kept on disk (default {@code ddata}): a directory path that
   * ends with {@code ddata} gets {@code -<system name>-<replicator name>-<port>} appended, so that
   * several nodes on one machine each have their own; any other path is used as it is.
   */
  public String rememberEntitiesLmdbDir() {
    return lmdb.getString("dir");
  }

  /**
   * The settings of shardkit's replicators for remembered entities: those of
   * {@link #replicatorConfig}, with every remembered-entities key durable and the LMDB settings of
   * {@code remember-entities.lmdb}; with {@code group-commit = on}, Pekko's LMDB store replaced
   * by shardkit's {@link GroupCommitDurableStore} (a store class of the application's own is kept).
   */
  public Config entitiesReplicatorConfig() {
    Config config = ConfigFactory.empty()
        .withValue("durable.keys", ConfigValueFactory.fromIterable(List.of(ShardEntitiesKeys.PREFIX + "*")))
        .withFallback(lmdb.atPath("durable.lmdb"))
        .withFallback(replicator);
    String storeClass = "durable.store-actor-class";
    if (lmdb.getBoolean("group-commit") && config.getString(storeClass).equals(LmdbJvmOptions.LMDB_STORE_CLASS)) {
      return config.withValue(storeClass, ConfigValueFactory.fromAnyRef(LmdbJvmOptions.GROUP_COMMIT_STORE_CLASS));
    }
    return config;
  }

  @Override
  public String toString() {
    return "DDataSettings(majority-min-cap=" + majorityMinCap + ", write-timeout=" + writeTimeout.toMillis()
        + "ms, read-timeout=" + readTimeout.toMillis() + "ms, read-retries=" + readRetries
        + ", remember-entities.lmdb.dir=" + rememberEntitiesLmdbDir() + ")";
  }
}
