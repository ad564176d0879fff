package dev.shardkit.sharding;

import com.typesafe.config.Config;
import dev.shardkit.sharding.internal.CoordinatorSpec;
import dev.shardkit.sharding.internal.DeliveryGate;
import dev.shardkit.sharding.internal.EntityRefImpl;
import dev.shardkit.sharding.internal.NodeAddress;
import dev.shardkit.sharding.internal.NodeGate;
import dev.shardkit.sharding.internal.RegionHandle;
import dev.shardkit.sharding.internal.RegionSpec;
import dev.shardkit.sharding.internal.RegisteredType;
import dev.shardkit.sharding.internal.SerializabilityCheck;
import dev.shardkit.sharding.internal.ShardCoordinator;
import dev.shardkit.sharding.internal.ShardRegion;
import dev.shardkit.sharding.internal.ShardingProtocol.CurrentRegions;
import dev.shardkit.sharding.internal.ShardingProtocol.GetCurrentRegions;
import dev.shardkit.sharding.internal.ShardingProtocol.GetRegionStats;
import dev.shardkit.sharding.internal.ShardingProtocol.RegionStats;
import dev.shardkit.sharding.internal.StateStores;
import dev.shardkit.sharding.spi.CoordinatorStateStoreProvider;
import dev.shardkit.sharding.spi.RememberEntitiesStoreProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.pekko.Done;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.singleton.ClusterSingletonManager;
import org.apache.pekko.cluster.singleton.ClusterSingletonManagerSettings;
import org.apache.pekko.cluster.singleton.ClusterSingletonProxy;
import org.apache.pekko.cluster.singleton.ClusterSingletonProxySettings;

/**
 * The entry point: start entity types, and address their entities. One instance per actor
 * system ({@link #get}); thread-safe.
 *
 * <p>Every node that should host an entity type's entities must call {@link #start} for it (with
 * the same type name, message class and extractor); nodes that only send use {@link #startProxy}.
 * The type's coordinator runs on the oldest node that called {@code start} (of the type's role).
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
  private final org.apache.pekko.actor.ExtendedActorSystem classic;
  private final Cluster cluster;
  private final ConcurrentHashMap<String, RegisteredType> types = new ConcurrentHashMap<>();

  private ClusterSharding(ActorSystem<?> system) {
    this.system = system;
    this.classic = (org.apache.pekko.actor.ExtendedActorSystem) Adapter.toClassic(system);
    this.cluster = Cluster.get(classic);
  }

  /**
   * The extension of an actor system.
   *
   * @throws IllegalArgumentException if the system is not configured with
   *     {@code pekko.actor.provider = cluster}
   */
  public static ClusterSharding get(ActorSystem<?> system) {
    try {
      return ID.apply(system);
    } catch (ClassCastException | org.apache.pekko.ConfigurationException e) {
      throw new IllegalArgumentException("shardkit needs a clustered actor system: set pekko.actor.provider = cluster ("
          + e.getMessage() + ")", e);
    }
  }

  /**
   * Starts an entity type on this node and returns its region, to which envelopes can be sent.
   * Idempotent per type name: a second call returns the same region. On a node without the
   * entity's role this starts a proxy-only region, which routes but hosts nothing.
   *
   * @throws IllegalArgumentException if {@code entity} is null, or the type name was already
   *     started with another message class
   * @throws IllegalStateException if the configured {@code state-store-mode} needs a module that
   *     is not on the classpath
   */
  public <M, E> ActorRef<E> start(Entity<M, E> entity) {
    if (entity == null) {
      throw new IllegalArgumentException("ClusterSharding.start needs an Entity, got null");
    }
    ShardingSettings settings = entity.settings().orElseGet(() -> ShardingSettings.create(system));
    Optional<String> role = entity.role().or(settings::role);
    boolean hosts = role.map(r -> cluster.selfRoles().contains(r)).orElse(true);
    @SuppressWarnings("unchecked")
    Function<EntityContext<Object>, Behavior<Object>> create =
        (Function<EntityContext<Object>, Behavior<Object>>) (Function<?, ?>) entity.createBehavior();
    return startRegion(entity.typeKey(), entity.messageExtractor(), settings.withRole(role.orElse(null)),
        hosts ? Optional.of(create) : Optional.empty(), entity.stopMessage().map(m -> (Object) m),
        entity.allocationStrategy());
  }

  /**
   * Starts a proxy-only region for an entity type on this node: it routes envelopes to the nodes
   * that host the type (with {@code role}) and never hosts entities itself. Idempotent per type
   * name; if the type is already started here, returns its region. Uses the default extractor.
   *
   * @throws IllegalArgumentException if the type name was already started with another message
   *     class
   */
  public <M> ActorRef<ShardingEnvelope<M>> startProxy(EntityTypeKey<M> typeKey, Optional<String> role) {
    return startProxy(typeKey, role, Optional.empty());
  }

  /**
   * Like {@link #startProxy(EntityTypeKey, Optional)}, with the extractor the hosting nodes use.
   */
  public <M, E> ActorRef<E> startProxy(EntityTypeKey<M> typeKey, Optional<String> role,
      MessageExtractor<E, M> extractor) {
    return startProxy(typeKey, role, Optional.of(extractor));
  }

  private <M, E> ActorRef<E> startProxy(EntityTypeKey<M> typeKey, Optional<String> role,
      Optional<MessageExtractor<E, M>> extractor) {
    if (typeKey == null) {
      throw new IllegalArgumentException("ClusterSharding.startProxy needs an EntityTypeKey, got null");
    }
    ShardingSettings settings = ShardingSettings.create(system);
    Optional<String> effectiveRole = role == null ? settings.role() : role.or(settings::role);
    return startRegion(typeKey, extractor, settings.withRole(effectiveRole.orElse(null)), Optional.empty(),
        Optional.empty(), Optional.empty());
  }

  @SuppressWarnings("unchecked")
  private synchronized <M, E> ActorRef<E> startRegion(EntityTypeKey<M> typeKey,
      Optional<MessageExtractor<E, M>> extractor, ShardingSettings settings,
      Optional<Function<EntityContext<Object>, Behavior<Object>>> createBehavior, Optional<Object> stopMessage,
      Optional<ShardAllocationStrategy> strategy) {
    String name = typeKey.name();
    RegisteredType existing = types.get(name);
    if (existing != null) {
      requireSameClass(existing, typeKey);
      return existing.handle().region().unsafeUpcast();
    }
    Config shardingConfig = system.settings().config().getConfig("shardkit.sharding");
    // The node's delivery gate runs before any of its entities can: they check it.
    NodeGate.get(system);
    CoordinatorStateStoreProvider provider = StateStores.provider(shardingConfig, settings.stateStoreMode());
    // Only regions that host entities remember them; a proxy never starts a shard.
    Optional<RememberEntitiesStoreProvider> remember = createBehavior.isPresent() && settings.rememberEntities()
        ? Optional.of(StateStores.rememberEntitiesProvider(shardingConfig, settings.rememberEntitiesStore()))
        : Optional.empty();
    remember.ifPresent(p -> p.startOnNode(system, name, settings));
    // Proxies on members of the role too: a store's replicas count every member of the role.
    if (createBehavior.isPresent() || settings.role().map(org.apache.pekko.cluster.Cluster.get(classic)
        .selfRoles()::contains).orElse(true)) {
      provider.startOnNode(system, name, settings);
    }
    MessageExtractor<Object, Object> ex = (MessageExtractor<Object, Object>) (MessageExtractor<?, ?>) extractor
        .orElseGet(() -> (MessageExtractor<E, M>) (MessageExtractor<?, ?>) new StableHashMessageExtractor<M>(
            settings.numberOfShards()));
    if (createBehavior.isPresent()) {
      // The built-in extractors' shard ids are 0..n-1, so the coordinator can place them all up front.
      int knownShards = settings.placeAllShardsAtStart() && (Object) ex instanceof EnvelopeMessageExtractor<?> known
          ? known.numberOfShards() : 0;
      startCoordinator(name, settings, strategy.orElseGet(settings::leastShardAllocationStrategy), provider,
          remember, knownShards);
    }
    ActorRef<Object> coordinator = Adapter.toTyped(classic.systemActorOf(
        ClusterSingletonProxy.props("/system/" + coordinatorName(name),
            ClusterSingletonProxySettings.create(classic).withRole(settings.role().orElse(null))),
        "shardkit-coordinator-proxy-" + name));
    RegionHandle handle = new RegionHandle(new SerializabilityCheck(classic));
    RegionSpec spec = new RegionSpec((EntityTypeKey<Object>) (EntityTypeKey<?>) typeKey, ex, createBehavior,
        stopMessage, settings, coordinator, handle, remember);
    ActorRef<Object> region = system.systemActorOf(ShardRegion.create(spec), ShardRegion.actorName(name),
        Props.empty());
    handle.attach(region);
    types.put(name, new RegisteredType(typeKey, handle, ex, coordinator, createBehavior.isEmpty()));
    // Before the node leaves the cluster, its shards move to the remaining nodes.
    CoordinatedShutdown shutdown = CoordinatedShutdown.get(classic);
    Duration phaseTimeout = Duration.ofNanos(
        shutdown.timeout(CoordinatedShutdown.PhaseClusterShardingShutdownRegion()).toNanos());
    shutdown.addTask(CoordinatedShutdown.PhaseClusterShardingShutdownRegion(), "shardkit-region-" + name, () -> {
      if (nodeIsOut()) {
        return CompletableFuture.completedFuture(Done.getInstance());
      }
      return shutdownRegion(region, phaseTimeout).exceptionally(e -> {
        system.log().warn("Entity type [{}]: the region did not hand off all its shards within {} ms ({}); "
            + "the node leaves anyway", name, phaseTimeout.toMillis(), e.toString());
        return Done.getInstance();
      });
    });
    return region.unsafeUpcast();
  }

  /**
   * A node that was downed or removed hands nothing off: nobody would take the shards (the others
   * no longer hear it), they are started elsewhere anyway, and its region has already stopped.
   */
  private boolean nodeIsOut() {
    var status = cluster.selfMember().status();
    return cluster.isTerminated() || status == org.apache.pekko.cluster.MemberStatus.down()
        || status == org.apache.pekko.cluster.MemberStatus.removed()
        || NodeGate.get(system).gate().state() == DeliveryGate.State.DOWN;
  }

  private CompletionStage<Done> shutdownRegion(ActorRef<Object> region, Duration timeout) {
    return AskPattern.<Object, Object>ask(region, ShardRegion.GracefulShutdown::new, timeout, system.scheduler())
        .thenApply(done -> Done.getInstance());
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
    return shutdownRegion(registered(typeKey).handle().region(), timeout);
  }

  private void startCoordinator(String name, ShardingSettings settings, ShardAllocationStrategy strategy,
      CoordinatorStateStoreProvider provider, Optional<RememberEntitiesStoreProvider> remember, int knownShards) {
    org.apache.pekko.actor.Props coordinatorProps = Adapter.props(() -> ShardCoordinator.create(new CoordinatorSpec(
        name, settings, strategy, provider.create(system, name, settings),
        remember.map(r -> () -> r.rememberedShards(system, name, settings)), knownShards)));
    classic.systemActorOf(
        ClusterSingletonManager.props(coordinatorProps, ShardCoordinator.Stop.INSTANCE,
            ClusterSingletonManagerSettings.create(classic).withRole(settings.role().orElse(null))),
        coordinatorName(name));
  }

  private static String coordinatorName(String typeName) {
    return "shardkit-coordinator-" + typeName;
  }

  private static void requireSameClass(RegisteredType registered, EntityTypeKey<?> key) {
    if (!registered.typeKey().messageClass().equals(key.messageClass())) {
      throw new IllegalArgumentException("Entity type [" + key.name() + "] is started on this node with message class "
          + registered.typeKey().messageClass().getName() + ", not " + key.messageClass().getName()
          + "; use one message class per type name");
    }
  }

  private RegisteredType registered(EntityTypeKey<?> key) {
    if (key == null) {
      throw new IllegalArgumentException("EntityTypeKey must not be null");
    }
    RegisteredType registered = types.get(key.name());
    if (registered == null) {
      throw new IllegalStateException("Entity type [" + key.name() + "] is not started on this node; call "
          + "ClusterSharding.start or startProxy for it first");
    }
    requireSameClass(registered, key);
    return registered;
  }

  /**
   * A reference to one entity. Cheap; create one per use or keep it.
   *
   * @throws IllegalArgumentException if the id is null or empty, or the type's extractor fails for
   *     it (each message names the entity type)
   * @throws IllegalStateException if the type is not started on this node
   */
  public <M> EntityRef<M> entityRefFor(EntityTypeKey<M> typeKey, String entityId) {
    RegisteredType registered = registered(typeKey);
    if (entityId == null || entityId.isEmpty()) {
      throw new IllegalArgumentException("Entity id for entity type [" + typeKey.name() + "] must not be "
          + (entityId == null ? "null" : "empty"));
    }
    String shardId;
    try {
      shardId = registered.extractor().shardId(entityId);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("The message extractor of entity type [" + typeKey.name()
          + "] failed for entity id [" + entityId + "]: " + e, e);
    }
    if (shardId == null || shardId.isEmpty()) {
      throw new IllegalArgumentException("The message extractor of entity type [" + typeKey.name()
          + "] gave no shard id for entity id [" + entityId + "]");
    }
    return new EntityRefImpl<>(typeKey, entityId, shardId, registered.handle(), system.scheduler());
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
    RegisteredType registered = registered(typeKey);
    return AskPattern.<Object, Object>ask(registered.handle().region(),
            replyTo -> new ShardRegion.GetLocalState(replyTo, timeout), timeout.plus(timeout), system.scheduler())
        .thenApply(r -> ((ShardRegion.LocalState) r).state());
  }

  /**
   * Every region of an entity type in the cluster, with its shards' entity counts. Regions that do
   * not answer within {@code timeout} are listed in {@link ClusterShardingStats#failedRegions()};
   * the stage fails only if the coordinator does not answer in time.
   *
   * @throws IllegalStateException if the type is not started on this node
   */
  public CompletionStage<ClusterShardingStats> clusterShardingStats(EntityTypeKey<?> typeKey, Duration timeout) {
    RegisteredType registered = registered(typeKey);
    return AskPattern.<Object, Object>ask(registered.coordinator(), GetCurrentRegions::new, timeout,
            system.scheduler())
        .thenCompose(reply -> {
          Set<ActorRef<Object>> regions = ((CurrentRegions) reply).regions();
          Map<Address, Map<String, Integer>> answered = new ConcurrentHashMap<>();
          Set<Address> failed = ConcurrentHashMap.newKeySet();
          List<CompletableFuture<Void>> asks = new ArrayList<>();
          for (ActorRef<Object> region : regions) {
            Address address = NodeAddress.of(region, cluster.selfAddress());
            asks.add(AskPattern.<Object, Object>ask(region, GetRegionStats::new, timeout, system.scheduler())
                .handle((r, error) -> {
                  if (error == null) {
                    answered.put(address, new HashMap<>(((RegionStats) r).entityCounts()));
                  } else {
                    failed.add(address);
                  }
                  return (Void) null;
                }).toCompletableFuture());
          }
          return CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new))
              .thenApply(done -> new ClusterShardingStats(answered, new HashSet<>(failed)));
        });
  }
}
