package dev.shardkit.sharding;

import dev.shardkit.sharding.internal.shard.EntityProps;
import dev.shardkit.sharding.internal.health.NodeHealth;
import dev.shardkit.sharding.internal.StartedType;
import dev.shardkit.sharding.internal.StartupChecks;
import dev.shardkit.sharding.internal.StartupWarnings;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Cluster;

import static dev.shardkit.sharding.internal.util.Arguments.requireNonNull;

/**
 * The entry point: start entity types, and address their entities. One instance per actor
 * system ({@link #get}); thread-safe.
 *
 * <p>Every node that should host an entity type's entities must call {@link #start} for it (with
 * the same type name, message class and extractor); nodes that only send use {@link #startProxy}.
 * The type's coordinator runs on the oldest node that called {@code start} (of the type's role).
 *
 * <p>Every method refuses a null argument with an {@link IllegalArgumentException} that names the
 * method and the argument; an absent role is {@link Optional#empty()}, not null.
 */
public final class ClusterSharding implements Extension {

  private static final ExtensionId<ClusterSharding> ID = new ExtensionId<>() {
    @Override
    public ClusterSharding createExtension(ActorSystem<?> system) {
      return new ClusterSharding(system);
    }
  };

  private static final Duration DEFAULT_STATE_TIMEOUT = Duration.ofSeconds(5);

  private final ActorSystem<?> system;
  private final Cluster cluster;
  private final ConcurrentHashMap<String, StartedType> types = new ConcurrentHashMap<>();

  private ClusterSharding(ActorSystem<?> system) {
    this.system = system;
    this.cluster = Cluster.get(Adapter.toClassic(system));
  }

  /**
   * The extension of an actor system.
   *
   * @throws IllegalArgumentException if the system is not configured with
   *     {@code pekko.actor.provider = cluster}
   */
  public static ClusterSharding get(ActorSystem<?> system) {
    requireNonNull(system, "ClusterSharding.get", "system");
    try {
      return ID.apply(system);
    } catch (ClassCastException | org.apache.pekko.ConfigurationException e) {
      throw new IllegalArgumentException("shardkit needs a clustered actor system: set pekko.actor.provider = cluster ("
          + e.getMessage() + ")", e);
    }
  }

  /**
   * Starts an entity type on this node and returns its region, to which envelopes can be sent.
   * The returned ref routes each envelope on the sender's thread, like an {@link EntityRef}, and in
   * order with the same sender's {@code EntityRef} messages; it can be asked, sent to other nodes
   * (where it still routes) and watched (it terminates when the region stops).
   * Idempotent per type name: a second call returns the same region. On a node without the
   * entity's role this starts a proxy-only region, which routes but hosts nothing. The first
   * start (or {@link #startProxy}) on a node logs a warning for each unsafe setting of the node's
   * configuration, naming it (see {@code docs/configuration.md}, "Warnings at start").
   *
   * @throws IllegalArgumentException if {@code entity} is null, the type name was already started
   *     with another message class, or (on a node that hosts the type) its
   *     {@link Entity#withEntityProps entity props} select a dispatcher this node's configuration
   *     does not have, or a binding named in {@code shardkit.sharding.telemetry.bindings} cannot be
   *     created (the message names the class and why)
   * @throws IllegalStateException if the configured {@code state-store-mode} needs a module that
   *     is not on the classpath
   */
  public <M, E> ActorRef<E> start(Entity<M, E> entity) {
    requireNonNull(entity, "ClusterSharding.start", "entity");
    ShardingSettings settings = entity.settings().orElseGet(() -> ShardingSettings.create(system));
    Optional<String> role = entity.role().or(settings::role);
    boolean hosts = role.map(r -> cluster.selfRoles().contains(r)).orElse(true);
    if (hosts) {
      // Here rather than when the first entity is spawned, where it would fail inside its shard.
      EntityProps.requireDispatcherConfigured(system, entity.typeKey().name(), entity.entityProps());
    }
    @SuppressWarnings("unchecked")
    Function<EntityContext<Object>, Behavior<Object>> create =
        (Function<EntityContext<Object>, Behavior<Object>>) (Function<?, ?>) entity.createBehavior();
    return startRegion(entity.typeKey(), entity.messageExtractor(), settings.withRole(role.orElse(null)),
        hosts ? Optional.of(create) : Optional.empty(), entity.stopMessage().map(m -> (Object) m),
        entity.allocationStrategy(), entity.entityProps());
  }

  /**
   * Starts a proxy-only region for an entity type on this node: it routes envelopes to the nodes
   * that host the type (with {@code role}) and never hosts entities itself. Idempotent per type
   * name; if the type is already started here, returns its region. Uses the default extractor and
   * the settings of {@code shardkit.sharding}.
   *
   * @param role the role of the nodes that host the type; empty for the configured
   *     {@code shardkit.sharding.role} (every node, if that is empty too)
   * @throws IllegalArgumentException if an argument is null, or the type name was already started
   *     with another message class
   */
  public <M> ActorRef<ShardingEnvelope<M>> startProxy(EntityTypeKey<M> typeKey, Optional<String> role) {
    return startProxy(typeKey, role, ShardingSettings.create(system));
  }

  /**
   * Like {@link #startProxy(EntityTypeKey, Optional)}, with the type's own settings, as the hosting
   * nodes pass them to {@link Entity#withSettings}: a proxy uses their {@code number-of-shards} (for
   * the default extractor), {@code buffer-size}, {@code retry-interval}, {@code remote-delivery} and
   * the drop warnings' interval. A {@code role} given here takes precedence over the settings' role.
   *
   * @throws IllegalArgumentException if an argument is null, or the type name was already started
   *     with another message class
   */
  public <M> ActorRef<ShardingEnvelope<M>> startProxy(EntityTypeKey<M> typeKey, Optional<String> role,
      ShardingSettings settings) {
    requireNonNull(typeKey, "ClusterSharding.startProxy", "typeKey");
    requireNonNull(role, "ClusterSharding.startProxy", "role", "pass Optional.empty() for the configured role");
    requireNonNull(settings, "ClusterSharding.startProxy", "settings");
    return startProxy(typeKey, role, Optional.empty(), settings);
  }

  /**
   * Like {@link #startProxy(EntityTypeKey, Optional)}, with the extractor the hosting nodes use.
   *
   * @throws IllegalArgumentException if an argument is null, or the type name was already started
   *     with another message class
   */
  public <M, E> ActorRef<E> startProxy(EntityTypeKey<M> typeKey, Optional<String> role,
      MessageExtractor<E, M> extractor) {
    return startProxy(typeKey, role, extractor, ShardingSettings.create(system));
  }

  /**
   * Like {@link #startProxy(EntityTypeKey, Optional, ShardingSettings)}, with the extractor the
   * hosting nodes use.
   *
   * @throws IllegalArgumentException if an argument is null, or the type name was already started
   *     with another message class
   */
  public <M, E> ActorRef<E> startProxy(EntityTypeKey<M> typeKey, Optional<String> role,
      MessageExtractor<E, M> extractor, ShardingSettings settings) {
    requireNonNull(typeKey, "ClusterSharding.startProxy", "typeKey");
    requireNonNull(role, "ClusterSharding.startProxy", "role", "pass Optional.empty() for the configured role");
    requireNonNull(extractor, "ClusterSharding.startProxy", "extractor");
    requireNonNull(settings, "ClusterSharding.startProxy", "settings");
    return startProxy(typeKey, role, Optional.of(extractor), settings);
  }

  private <M, E> ActorRef<E> startProxy(EntityTypeKey<M> typeKey, Optional<String> role,
      Optional<MessageExtractor<E, M>> extractor, ShardingSettings settings) {
    Optional<String> effectiveRole = role.or(settings::role);
    return startRegion(typeKey, extractor, settings.withRole(effectiveRole.orElse(null)), Optional.empty(),
        Optional.empty(), Optional.empty(), Props.empty());
  }

  private synchronized <M, E> ActorRef<E> startRegion(EntityTypeKey<M> typeKey,
      Optional<MessageExtractor<E, M>> extractor, ShardingSettings settings,
      Optional<Function<EntityContext<Object>, Behavior<Object>>> createBehavior, Optional<Object> stopMessage,
      Optional<ShardAllocationStrategy> strategy, Props entityProps) {
    StartedType existing = types.get(typeKey.name());
    if (existing != null) {
      requireSameClass(existing, typeKey);
      return existing.region().unsafeUpcast();
    }
    StartupWarnings.get(system).warnOnce(StartupChecks.warnings(system.settings().config()));
    @SuppressWarnings("unchecked")
    MessageExtractor<Object, Object> resolved = (MessageExtractor<Object, Object>) (MessageExtractor<?, ?>) extractor
        .orElseGet(() -> (MessageExtractor<E, M>) (MessageExtractor<?, ?>) new StableHashMessageExtractor<M>(
            settings.numberOfShards()));
    // The built-in extractors' shard ids are 0..n-1, so the coordinator can place them all up front.
    int knownShards = createBehavior.isPresent() && settings.placeAllShardsAtStart()
        && (Object) resolved instanceof EnvelopeMessageExtractor<?> known ? known.numberOfShards() : 0;
    StartedType started = StartedType.start(system, typeKey, resolved, knownShards, settings, createBehavior,
        stopMessage, strategy.orElseGet(settings::leastShardAllocationStrategy), entityProps);
    types.put(typeKey.name(), started);
    return started.region().unsafeUpcast();
  }

  /**
   * Hands off every shard of this node's region of the type to other nodes and stops the region;
   * completes when it has stopped. Messages for those entities sent meanwhile reach them at their
   * new homes. The same happens by itself when the node leaves the cluster (Pekko's coordinated
   * shutdown). Afterwards the type cannot be started again on this node, and messages sent to
   * it here go to dead letters.
   *
   * @throws IllegalStateException if the type is not started on this node
   * @return completes when the region has stopped, or fails with a timeout if the hand-offs took
   *     longer than {@code timeout}
   */
  public CompletionStage<Done> gracefulShutdown(EntityTypeKey<?> typeKey, Duration timeout) {
    requireNonNull(timeout, "ClusterSharding.gracefulShutdown", "timeout");
    return registered(typeKey, "ClusterSharding.gracefulShutdown").gracefulShutdown(timeout);
  }

  private static void requireSameClass(StartedType registered, EntityTypeKey<?> key) {
    if (!registered.typeKey().messageClass().equals(key.messageClass())) {
      throw new IllegalArgumentException("Entity type [" + key.name() + "] is started on this node with message class "
          + registered.typeKey().messageClass().getName() + ", not " + key.messageClass().getName()
          + "; use one message class per type name");
    }
  }

  private StartedType registered(EntityTypeKey<?> key, String method) {
    requireNonNull(key, method, "typeKey");
    StartedType registered = types.get(key.name());
    if (registered == null) {
      throw new IllegalStateException("Entity type [" + key.name() + "] is not started on this node; call "
          + "ClusterSharding.start or startProxy for it first");
    }
    requireSameClass(registered, key);
    return registered;
  }

  /** What the health checks decide from: this node's shutdown, gate and every started type's region. */
  NodeHealth nodeHealth() {
    return NodeHealth.observe(system, types.values());
  }

  /**
   * A reference to one entity. Cheap; create one per use or keep it.
   *
   * @throws IllegalArgumentException if the id is null or empty, or the type's extractor fails for
   *     it (each message names the entity type)
   * @throws IllegalStateException if the type is not started on this node
   */
  public <M> EntityRef<M> entityRefFor(EntityTypeKey<M> typeKey, String entityId) {
    return registered(typeKey, "ClusterSharding.entityRefFor").entityRefFor(typeKey, entityId);
  }

  /**
   * This node's region of an entity type: its shards and their live entities, with a 5-second
   * timeout for the shards to answer.
   *
   * @throws IllegalStateException if the type is not started on this node
   */
  public CompletionStage<ShardRegionState> shardRegionState(EntityTypeKey<?> typeKey) {
    return shardRegionState(typeKey, DEFAULT_STATE_TIMEOUT);
  }

  /**
   * This node's region of an entity type; shards that do not answer within {@code timeout} are
   * left out.
   *
   * @throws IllegalStateException if the type is not started on this node
   */
  public CompletionStage<ShardRegionState> shardRegionState(EntityTypeKey<?> typeKey, Duration timeout) {
    requireNonNull(timeout, "ClusterSharding.shardRegionState", "timeout");
    return registered(typeKey, "ClusterSharding.shardRegionState").localState(timeout);
  }

  /**
   * A diagnostic: what the entity type's coordinator holds in memory while it waits for its state
   * store (answers pending, effects waiting for a write, requests refused because a bounded queue
   * was full). Ask it on the node that runs the coordinator, the oldest node of the type's role.
   *
   * @throws IllegalStateException if the type is not started on this node
   * @return fails with Pekko's {@code ActorNotFound} if the coordinator does not run on this node,
   *     or with a timeout if it does not answer within {@code timeout}
   */
  public CompletionStage<CoordinatorBacklog> coordinatorBacklog(EntityTypeKey<?> typeKey, Duration timeout) {
    requireNonNull(timeout, "ClusterSharding.coordinatorBacklog", "timeout");
    return registered(typeKey, "ClusterSharding.coordinatorBacklog").coordinatorBacklog(timeout);
  }

  /**
   * Every region of an entity type in the cluster, with its shards' entity counts. Regions that do
   * not answer within {@code timeout} are listed in {@link ClusterShardingStats#failedRegions()};
   * the stage fails only if the coordinator does not answer in time.
   *
   * @throws IllegalStateException if the type is not started on this node
   */
  public CompletionStage<ClusterShardingStats> clusterShardingStats(EntityTypeKey<?> typeKey, Duration timeout) {
    requireNonNull(timeout, "ClusterSharding.clusterShardingStats", "timeout");
    return registered(typeKey, "ClusterSharding.clusterShardingStats").clusterStats(timeout);
  }
}
