package dev.shardkit.sharding.ddata.internal;

import com.typesafe.config.Config;
import dev.shardkit.sharding.ddata.DDataSettings;
import java.io.File;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.ddata.Replicator;
import org.apache.pekko.cluster.ddata.ReplicatorSettings;

/**
 * shardkit's own distributed-data replicators, one per cluster role and purpose, each started on
 * first use as a system actor: {@code shardkit-replicator[-<role>]} for coordinator state, in
 * memory only, and {@code shardkit-entities-replicator[-<role>]} for remembered entities, which
 * also keeps every value on this node's disk (LMDB), so that remembered entities survive a restart
 * of the whole cluster. The second starts only where remember-entities is used, so no LMDB files
 * appear otherwise.
 *
 * <p>Why not the application's replicator: a replica exists only where a replicator runs, and a
 * majority is counted over the members with the replicator's role. A replicator with the entity
 * type's role counts exactly the nodes that host the type (each starts it before its region
 * registers), so a majority means a majority of those. The application's replicator has whatever
 * role and settings the application chose, and would mix its keys with ours. Why two per role:
 * a replicator with durable keys loads them from disk before it answers anything, and writes
 * them to disk before it confirms; the coordinator's state needs neither.
 *
 * <p>Settings come from {@code shardkit.sharding.ddata.replicator}; the remembered-entities
 * replicators add their durable keys and {@code shardkit.sharding.ddata.remember-entities.lmdb}
 * (see {@link DDataSettings#entitiesReplicatorConfig}).
 */
public final class Replicators implements Extension {
  private static final ExtensionId<Replicators> ID = new ExtensionId<>() {
    @Override
    public Replicators createExtension(ActorSystem<?> system) {
      return new Replicators(system);
    }
  };

  private final ActorSystem<?> system;
  private final DDataSettings settings;
  private final Map<String, ActorRef> started = new HashMap<>();
  private final Map<String, ReplicaPresence> presences = new HashMap<>();
  private final Map<String, ShardListing> listings = new HashMap<>();

  private Replicators(ActorSystem<?> system) {
    this.system = system;
    this.settings = DDataSettings.create(system);
  }

  /**
   * @throws IllegalArgumentException if {@code shardkit.sharding.ddata} is invalid (named key)
   */
  public static Replicators get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  /** This system's {@code shardkit.sharding.ddata} settings. */
  public DDataSettings settings() {
    return settings;
  }

  /**
   * The replicator of coordinator state whose replicas are the nodes with {@code role} (every
   * node if empty), started here if it is not running yet.
   *
   * @throws IllegalArgumentException if this node does not have the role: a replicator counts
   *     only the nodes of its role, so it cannot run on another
   */
  public ActorRef replicatorFor(Optional<String> role) {
    return start(actorName(role), role, settings.replicatorConfig(), "coordinator state");
  }

  /**
   * The replicator of remembered entities whose replicas are the nodes with {@code role} (every
   * node if empty), started here if it is not running yet; it opens its LMDB directory
   * ({@link #lmdbDirectory}) as it starts.
   *
   * @throws IllegalArgumentException if this node does not have the role
   * @throws IllegalStateException if the JVM lacks the options lmdbjava needs ({@link LmdbJvmOptions})
   */
  public synchronized ActorRef entitiesReplicatorFor(Optional<String> role) {
    String name = entitiesActorName(role);
    boolean starting = !started.containsKey(name);
    Config config = settings.entitiesReplicatorConfig();
    if (starting && LmdbJvmOptions.usesLmdb(config.getString("durable.store-actor-class"))) {
      LmdbJvmOptions.require("remembered entities");
    }
    ActorRef replicator = start(name, role, config, "remembered entities");
    if (starting) {
      warnIfLostOnRestart(role);
    }
    return replicator;
  }

  private synchronized ActorRef start(String name, Optional<String> role, Config config, String what) {
    ActorRef existing = started.get(name);
    if (existing != null) {
      return existing;
    }
    Cluster cluster = Cluster.get(Adapter.toClassic(system));
    if (role.isPresent() && !cluster.selfRoles().contains(role.get())) {
      throw new IllegalArgumentException("Cannot keep " + what + " for role [" + role.get() + "] on "
          + cluster.selfAddress() + ", which does not have that role (its roles: " + cluster.selfRoles() + ")");
    }
    ReplicatorSettings replicatorSettings = ReplicatorSettings.apply(config).withRole(role.orElse(""));
    ActorRef replicator = ((ExtendedActorSystem) Adapter.toClassic(system))
        .systemActorOf(Replicator.props(replicatorSettings), name);
    started.put(name, replicator);
    system.log().debug("Started shardkit's replicator {} of {} for {}", replicator.path(), what,
        role.map(r -> "role [" + r + "]").orElse("every node"));
    return replicator;
  }

  /**
   * The listing of {@code typeName}'s shards with remembered entities through {@code replicator}
   * (the remembered-entities replicator of {@code role}), shared by the type's stores on this node.
   *
   * @throws IllegalArgumentException if the type name cannot make a key
   */
  public synchronized ShardListing listingFor(String typeName, Optional<String> role, ActorRef replicator) {
    String name = replicator.path().toStringWithoutAddress() + "/" + typeName;
    ShardListing listing = listings.get(name);
    if (listing == null) {
      listing = new ShardListing(typeName, new ReplicaMajority(system, role, settings, replicator,
          "Entity type [" + typeName + "]", "the listing of shards was stopped"));
      listings.put(name, listing);
    }
    return listing;
  }

  /** Which members run the same replicator as {@code replicator}, one of this system's. */
  public synchronized ReplicaPresence presenceOf(ActorRef replicator) {
    return presences.computeIfAbsent(replicator.path().name(),
        name -> new ReplicaPresence(Adapter.toClassic(system), replicator));
  }

  /**
   * The directory where the remembered-entities replicator of {@code role} keeps its LMDB files on
   * this node, as Pekko's durable store names it: {@code remember-entities.lmdb.dir} itself, or,
   * if that ends with {@code ddata}, with {@code -<system name>-<replicator name>-<port>} appended.
   */
  public File lmdbDirectory(Optional<String> role) {
    return LmdbDurableFile.directory(settings.rememberEntitiesLmdbDir(), system.name(), entitiesActorName(role),
        () -> Cluster.get(Adapter.toClassic(system)).selfAddress().port().get());
  }

  private void warnIfLostOnRestart(Optional<String> role) {
    String portKey = "pekko.remote.artery.canonical.port";
    var config = system.settings().config();
    if (settings.rememberEntitiesLmdbDir().endsWith("ddata") && config.hasPath(portKey)
        && config.getInt(portKey) == 0) {
      system.log().warn("shardkit keeps remembered entities on this node in the LMDB directory {}, whose name "
          + "holds this node's port, which was chosen at random ({} = 0): after a restart the node will not find "
          + "them there. Give each node a fixed port, or set shardkit.sharding.ddata.remember-entities.lmdb.dir "
          + "to a directory of its own that does not end with \"ddata\"", lmdbDirectory(role).getAbsolutePath(),
          portKey);
    }
  }

  /** The actor name of the coordinator-state replicator of a role; the same on every node, which is how they find each other. */
  public static String actorName(Optional<String> role) {
    return "shardkit-replicator" + roleSuffix(role);
  }

  /** The actor name of the remembered-entities replicator of a role; never that of a coordinator-state replicator. */
  public static String entitiesActorName(Optional<String> role) {
    return "shardkit-entities-replicator" + roleSuffix(role);
  }

  private static String roleSuffix(Optional<String> role) {
    return role.map(r -> "-" + URLEncoder.encode(r, StandardCharsets.UTF_8)).orElse("");
  }
}
