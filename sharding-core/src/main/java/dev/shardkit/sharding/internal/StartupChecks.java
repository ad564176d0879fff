package dev.shardkit.sharding.internal;

import com.typesafe.config.Config;
import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * Decides, from a node's configuration alone, which unsafe settings deserve a warning when
 * sharding starts on the node: each warning names the setting to change. A pure function of the
 * {@link Config}; {@link StartupWarnings} logs what it returns.
 *
 * <p>The one check of this module: a node configured to join a cluster through seed nodes
 * ({@value #SEED_NODES} not empty) without a downing provider ({@value #DOWNING_PROVIDER} empty,
 * Pekko's default). Nothing then downs a crashed node, so its shards never move and every crash
 * guarantee of {@code docs/guarantees.md} is void.
 *
 * <p>{@link #multiNode} is the rule the store modules share for their own checks (an H2 file, an
 * empty database password): whether the configuration describes a cluster of more than one node.
 *
 * <p>Internal API: public for the store modules; not for applications, and it may change in any
 * release.
 */
@InternalApi
public final class StartupChecks {
  /** Pekko's setting that names the downing provider; empty (Pekko's default) means none. */
  public static final String DOWNING_PROVIDER = "pekko.cluster.downing-provider-class";
  /** Pekko's setting that lists the nodes a starting node joins through. */
  public static final String SEED_NODES = "pekko.cluster.seed-nodes";
  /** The downing provider every crash guarantee of shardkit is tested with. */
  public static final String SPLIT_BRAIN_RESOLVER = "org.apache.pekko.cluster.sbr.SplitBrainResolverProvider";
  private static final String CANONICAL_HOSTNAME = "pekko.remote.artery.canonical.hostname";
  private static final String CANONICAL_PORT = "pekko.remote.artery.canonical.port";

  private StartupChecks() {}

  /**
   * The warnings for this node's configuration, empty if it has none to give.
   *
   * @param config the actor system's whole configuration
   * @throws IllegalArgumentException if {@value #SEED_NODES} or {@value #DOWNING_PROVIDER} is not
   *     of Pekko's type (a list of strings, a string)
   */
  public static List<String> warnings(Config config) {
    List<String> seeds = seedNodes(config);
    String downing = config.hasPath(DOWNING_PROVIDER) ? string(config, DOWNING_PROVIDER) : "";
    if (seeds.isEmpty() || !downing.isBlank()) {
      return List.of();
    }
    return List.of("No downing provider is configured (" + DOWNING_PROVIDER + " is empty) in a cluster with seed "
        + "nodes (" + SEED_NODES + "): nothing downs a crashed node, so its shards never move to another node and "
        + "every crash guarantee in docs/guarantees.md is void. Set " + DOWNING_PROVIDER + " = \""
        + SPLIT_BRAIN_RESOLVER + "\" (see pekko.cluster.split-brain-resolver)");
  }

  /**
   * Whether the configuration describes a node of a cluster of more than one node: it lists more
   * than one seed node, or one seed node that is not this node itself (its host and port differ
   * from {@code pekko.remote.artery.canonical}; with Pekko's placeholder hostname, such as
   * {@code <getHostAddress>}, only the port). A node whose only seed is itself may be the first
   * node of a larger cluster; the nodes that join it list it as a seed that is not themselves, so
   * they answer true. Nodes that join without seed nodes (programmatically, or through a
   * bootstrap tool) are not recognised.
   *
   * @param config the actor system's whole configuration
   * @throws IllegalArgumentException if {@value #SEED_NODES} is not a list of strings
   */
  public static boolean multiNode(Config config) {
    List<String> seeds = seedNodes(config);
    if (seeds.size() != 1) {
      return seeds.size() > 1;
    }
    Optional<URI> seed = address(seeds.get(0));
    String host = config.hasPath(CANONICAL_HOSTNAME) ? string(config, CANONICAL_HOSTNAME) : "";
    String port = config.hasPath(CANONICAL_PORT) ? string(config, CANONICAL_PORT) : "";
    // Pekko's default hostname is a placeholder ("<getHostAddress>") filled in at start; a pure
    // check cannot resolve it, so it matches any host and the port alone decides.
    boolean anyHost = host.startsWith("<");
    return seed.map(uri -> !((anyHost || host.equalsIgnoreCase(uri.getHost()))
        && port.equals(String.valueOf(uri.getPort())))).orElse(true);
  }

  private static List<String> seedNodes(Config config) {
    if (!config.hasPath(SEED_NODES)) {
      return List.of();
    }
    try {
      return config.getStringList(SEED_NODES);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(SEED_NODES + " must be a list of node addresses: " + e.getMessage(), e);
    }
  }

  private static String string(Config config, String path) {
    try {
      return config.getString(path);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(path + " must be a string: " + e.getMessage(), e);
    }
  }

  // A seed is pekko://System@host:port; one that does not parse is certainly not this node.
  private static Optional<URI> address(String seed) {
    try {
      URI uri = new URI(seed);
      return uri.getHost() == null ? Optional.empty() : Optional.of(uri);
    } catch (java.net.URISyntaxException e) {
      return Optional.empty();
    }
  }
}
