package dev.shardkit.sharding.ddata.internal;

import dev.shardkit.sharding.ddata.DDataSettings;
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
 * shardkit's own distributed-data replicators, one per cluster role, each started on first use as
 * the system actor {@code shardkit-replicator} (no role) or {@code shardkit-replicator-<role>}.
 *
 * <p>Why not the application's replicator: a replica exists only where a replicator runs, and a
 * majority is counted over the members with the replicator's role. A replicator with the entity
 * type's role counts exactly the nodes that host the type (each starts it before its region
 * registers), so a majority means a majority of those. The application's replicator has whatever
 * role and settings the application chose, and would mix its keys with ours.
 *
 * <p>Settings come from {@code shardkit.sharding.ddata.replicator}. Durable keys configured there
 * apply to every replicator; each replicator's actor name differs, so each keeps its own durable
 * store directory.
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
   * The replicator whose replicas are the nodes with {@code role} (every node if empty), started
   * here if it is not running yet.
   *
   * @throws IllegalArgumentException if this node does not have the role: a replicator counts
   *     only the nodes of its role, so it cannot run on another
   */
  public synchronized ActorRef replicatorFor(Optional<String> role) {
    String name = actorName(role);
    ActorRef existing = started.get(name);
    if (existing != null) {
      return existing;
    }
    Cluster cluster = Cluster.get(Adapter.toClassic(system));
    if (role.isPresent() && !cluster.selfRoles().contains(role.get())) {
      throw new IllegalArgumentException("Cannot keep coordinator state for role [" + role.get() + "] on "
          + cluster.selfAddress() + ", which does not have that role (its roles: " + cluster.selfRoles() + ")");
    }
    ReplicatorSettings replicatorSettings = ReplicatorSettings.apply(settings.replicatorConfig())
        .withRole(role.orElse(""));
    ActorRef replicator = ((ExtendedActorSystem) Adapter.toClassic(system))
        .systemActorOf(Replicator.props(replicatorSettings), name);
    started.put(name, replicator);
    system.log().debug("Started shardkit's replicator {} for {}", replicator.path(),
        role.map(r -> "role [" + r + "]").orElse("every node"));
    return replicator;
  }

  /** The actor name of the replicator of a role; the same on every node, which is how they find each other. */
  public static String actorName(Optional<String> role) {
    return "shardkit-replicator" + role.map(r -> "-" + URLEncoder.encode(r, StandardCharsets.UTF_8)).orElse("");
  }
}
