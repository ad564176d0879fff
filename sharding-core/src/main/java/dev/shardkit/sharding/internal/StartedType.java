package dev.shardkit.sharding.internal;

import com.typesafe.config.Config;
import dev.shardkit.sharding.ClusterShardingStats;
import dev.shardkit.sharding.CoordinatorBacklog;
import dev.shardkit.sharding.EntityContext;
import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.MessageExtractor;
import dev.shardkit.sharding.ShardAllocationStrategy;
import dev.shardkit.sharding.ShardRegionState;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.coordinator.CoordinatorLease;
import dev.shardkit.sharding.internal.coordinator.CoordinatorSpec;
import dev.shardkit.sharding.internal.coordinator.ShardCoordinator;
import dev.shardkit.sharding.internal.gate.DeliveryGate;
import dev.shardkit.sharding.internal.gate.NodeGate;
import dev.shardkit.sharding.internal.membership.NodeAddress;
import dev.shardkit.sharding.internal.region.EntityRefImpl;
import dev.shardkit.sharding.internal.region.RegionEntrance;
import dev.shardkit.sharding.internal.region.RegionHandle;
import dev.shardkit.sharding.internal.region.RegionRequests;
import dev.shardkit.sharding.internal.region.RegionSpec;
import dev.shardkit.sharding.internal.region.RegionStatus;
import dev.shardkit.sharding.internal.region.SerializabilityCheck;
import dev.shardkit.sharding.internal.region.ShardRegion;
import dev.shardkit.sharding.internal.store.StateStores;
import dev.shardkit.sharding.internal.telemetry.TelemetryBindings;
import dev.shardkit.sharding.internal.util.Arguments;
import dev.shardkit.sharding.internal.util.ShardIdBounds;
import dev.shardkit.sharding.internal.util.ShardIds;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.CurrentRegions;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetCurrentRegions;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetRegionStats;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegionStats;
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
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.singleton.ClusterSingletonManager;
import org.apache.pekko.cluster.singleton.ClusterSingletonManagerSettings;
import org.apache.pekko.cluster.singleton.ClusterSingletonProxy;
import org.apache.pekko.cluster.singleton.ClusterSingletonProxySettings;

/**
 * An entity type started on this node: its stores, its coordinator singleton (where the node
 * hosts the type), the coordinator's proxy, its region and the handle callers route through, and
 * the coordinated-shutdown task that hands its shards off before the node leaves. Everything
 * {@code ClusterSharding} does for a type after checking its arguments happens here, so the
 * actors and their units stay package-private.
 *
 * <p>Internal API: public only for {@code dev.shardkit.sharding.ClusterSharding}; not for
 * applications, and it may change in any release.
 */
@InternalApi
public final class StartedType {
  private final ActorSystem<?> system;
  private final EntityTypeKey<?> typeKey;
  private final RegionHandle handle;
  private final MessageExtractor<Object, Object> extractor;
  private final ActorRef<Object> coordinator;
  private final RegionStatus status;
  /** Completes when the region has stopped, whatever stopped it. */
  private final CompletableFuture<Done> regionStopped = new CompletableFuture<>();

  private StartedType(ActorSystem<?> system, EntityTypeKey<?> typeKey, RegionHandle handle,
      MessageExtractor<Object, Object> extractor, ActorRef<Object> coordinator, RegionStatus status) {
    this.system = system;
    this.typeKey = typeKey;
    this.handle = handle;
    this.extractor = extractor;
    this.coordinator = coordinator;
    this.status = status;
  }

  /**
   * Starts an entity type's runtime on this node.
   *
   * @param extractor the type's extractor
   * @param knownShards with n &gt; 0, the shard ids are {@code 0..n-1} and the coordinator places
   *     them all up front; 0 places each shard when it is first asked for
   * @param createBehavior the entities' behaviour; empty for a proxy, which hosts nothing
   * @param entityProps the entities' props (dispatcher, tags), without a mailbox: the entities'
   *     mailbox is always the gated one
   * @throws IllegalStateException if a configured store needs a module that is not on the class path
   * @throws IllegalArgumentException if a telemetry binding in {@code shardkit.sharding.telemetry}
   *     cannot be created
   */
  @SuppressWarnings("unchecked")
  public static StartedType start(ActorSystem<?> system, EntityTypeKey<?> typeKey,
      MessageExtractor<Object, Object> extractor, int knownShards, ShardingSettings settings,
      Optional<Function<EntityContext<Object>, Behavior<Object>>> createBehavior, Optional<Object> stopMessage,
      ShardAllocationStrategy strategy, Props entityProps) {
    String name = typeKey.name();
    ExtendedActorSystem classic = (ExtendedActorSystem) Adapter.toClassic(system);
    Config shardingConfig = system.settings().config().getConfig("shardkit.sharding");
    // A binding that cannot be created fails this call, not the actors that would report to it.
    TelemetryBindings.get(system);
    // The node's delivery gate runs before any of its entities can: they check it.
    NodeGate.get(system);
    SuppressedLetters.start(system);
    CoordinatorStateStoreProvider provider = StateStores.provider(shardingConfig, settings.stateStoreMode());
    // Only regions that host entities remember them; a proxy never starts a shard.
    Optional<RememberEntitiesStoreProvider> remember = createBehavior.isPresent() && settings.rememberEntities()
        ? Optional.of(StateStores.rememberEntitiesProvider(shardingConfig, settings.rememberEntitiesStore()))
        : Optional.empty();
    remember.ifPresent(p -> p.startOnNode(system, name, settings));
    // Proxies on members of the role too: a store's replicas count every member of the role.
    if (createBehavior.isPresent() || settings.role().map(Cluster.get(classic).selfRoles()::contains).orElse(true)) {
      provider.startOnNode(system, name, settings);
    }
    if (createBehavior.isPresent()) {
      startCoordinator(system, classic, name, settings, strategy, provider, remember, knownShards, extractor);
    }
    ActorRef<Object> coordinator = Adapter.toTyped(classic.systemActorOf(
        ClusterSingletonProxy.props("/system/" + coordinatorName(name),
            ClusterSingletonProxySettings.create(classic).withRole(settings.role().orElse(null))),
        "shardkit-coordinator-proxy-" + name));
    RegionHandle handle = new RegionHandle(new SerializabilityCheck(classic));
    RegionStatus status = new RegionStatus(name, createBehavior.isEmpty());
    RegionSpec spec = new RegionSpec((EntityTypeKey<Object>) typeKey, extractor, createBehavior,
        stopMessage, entityProps, settings, coordinator, handle, remember, status);
    ActorRef<Object> region = system.systemActorOf(ShardRegion.create(spec), ShardRegion.actorName(name),
        Props.empty());
    handle.attach(region);
    handle.useEntrance(RegionEntrance.open(name, extractor, handle));
    StartedType started = new StartedType(system, typeKey, handle, extractor, coordinator, status);
    started.watchRegion(region);
    started.handOffBeforeLeaving(classic);
    return started;
  }

  private static void startCoordinator(ActorSystem<?> system, ExtendedActorSystem classic, String name,
      ShardingSettings settings, ShardAllocationStrategy strategy, CoordinatorStateStoreProvider provider,
      Optional<RememberEntitiesStoreProvider> remember, int knownShards, MessageExtractor<Object, Object> extractor) {
    org.apache.pekko.actor.Props coordinatorProps = Adapter.props(() -> ShardCoordinator.create(new CoordinatorSpec(
        name, settings, strategy, provider.create(system, name, settings),
        remember.map(r -> () -> r.rememberedShards(system, name, settings)), knownShards,
        ShardIdBounds.of(name, extractor, settings.maxShards()))));
    classic.systemActorOf(
        ClusterSingletonManager.props(coordinatorProps, ShardCoordinator.Stop.INSTANCE,
            CoordinatorLease.singletonSettings(ClusterSingletonManagerSettings.create(classic), classic.settings().config(),
                settings)),
        coordinatorName(name));
  }

  private static String coordinatorName(String typeName) {
    return "shardkit-coordinator-" + typeName;
  }

  /**
   * A region that has already stopped (shut down gracefully by the application, or stopped because
   * its node left) has nothing to hand off; without this, the shutdown task's ask would wait out
   * the phase timeout.
   */
  private void watchRegion(ActorRef<Object> region) {
    system.systemActorOf(Behaviors.<Object>setup(ctx -> {
      ctx.watch(region);
      return Behaviors.receive(Object.class)
          .onSignal(Terminated.class, t -> {
            status.stopped();
            regionStopped.complete(Done.getInstance());
            return Behaviors.stopped();
          })
          .build();
    }), ShardRegion.actorName(typeKey.name()) + "-watch", Props.empty());
  }

  /** Before the node leaves the cluster, its shards move to the remaining nodes. */
  private void handOffBeforeLeaving(ExtendedActorSystem classic) {
    CoordinatedShutdown shutdown = CoordinatedShutdown.get(classic);
    Duration phaseTimeout = Duration.ofNanos(
        shutdown.timeout(CoordinatedShutdown.PhaseClusterShardingShutdownRegion()).toNanos());
    shutdown.addTask(CoordinatedShutdown.PhaseClusterShardingShutdownRegion(), "shardkit-region-" + typeKey.name(),
        () -> {
          if (nodeIsOut(Cluster.get(classic))) {
            return CompletableFuture.completedFuture(Done.getInstance());
          }
          return gracefulShutdown(phaseTimeout).exceptionally(e -> {
            system.log().warn("Entity type [{}]: the region did not hand off all its shards within {} ms ({}); "
                + "the node leaves anyway", typeKey.name(), phaseTimeout.toMillis(), e.toString());
            return Done.getInstance();
          });
        });
  }

  /**
   * A node that was downed or removed hands nothing off: nobody would take the shards (the others
   * no longer hear it), they are started elsewhere anyway, and its region has already stopped.
   */
  private boolean nodeIsOut(Cluster cluster) {
    MemberStatus status = cluster.selfMember().status();
    return cluster.isTerminated() || status == MemberStatus.down() || status == MemberStatus.removed()
        || NodeGate.get(system).gate().state() == DeliveryGate.State.DOWN;
  }

  /** The region's registration and whether it stopped, as the node's health checks see them. */
  public RegionStatus.Snapshot status() {
    return status.snapshot();
  }

  /** The key the type was started with. */
  public EntityTypeKey<?> typeKey() {
    return typeKey;
  }

  /**
   * The ref {@code start} returns: this node's region of the type, entered on the sender's thread
   * (see {@link RegionEntrance}).
   */
  public ActorRef<Object> region() {
    return handle.entrance();
  }

  /**
   * A reference to one entity of the type.
   *
   * @throws IllegalArgumentException if the id is null or empty, or the extractor fails for it or
   *     gives no shard id (each message names the entity type)
   */
  public <M> EntityRef<M> entityRefFor(EntityTypeKey<M> key, String entityId) {
    Arguments.requireNonNull(entityId, "ClusterSharding.entityRefFor for entity type [" + key.name() + "]", "entityId");
    if (!ShardIds.isValid(entityId)) {
      throw new IllegalArgumentException("Entity id for entity type [" + key.name() + "] must not be empty");
    }
    String shardId;
    try {
      shardId = extractor.shardId(entityId);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("The message extractor of entity type [" + key.name()
          + "] failed for entity id [" + entityId + "]: " + e, e);
    }
    if (!ShardIds.isValid(shardId)) {
      throw new IllegalArgumentException("The message extractor of entity type [" + key.name()
          + "] gave no shard id for entity id [" + entityId + "]");
    }
    return new EntityRefImpl<>(key, entityId, shardId, handle, system);
  }

  /** Hands off every shard of this node's region and stops it; completes when it has stopped. */
  public CompletionStage<Done> gracefulShutdown(Duration timeout) {
    if (regionStopped.isDone()) {
      return regionStopped;
    }
    status.stopAsked();
    return AskPattern.<Object, Object>ask(handle.region(), RegionRequests.GracefulShutdown::new, timeout,
            system.scheduler())
        .thenApply(done -> Done.getInstance())
        .applyToEither(regionStopped, done -> done);
  }

  /** This node's region: its shards and their live entities; shards slower than {@code timeout} are left out. */
  public CompletionStage<ShardRegionState> localState(Duration timeout) {
    return AskPattern.<Object, Object>ask(handle.region(),
            replyTo -> new RegionRequests.GetLocalState(replyTo, timeout), timeout.plus(timeout), system.scheduler())
        .thenApply(r -> ((RegionRequests.LocalState) r).state());
  }

  /**
   * What the type's coordinator running on this node holds while it waits for its store. Fails
   * with Pekko's {@code ActorNotFound} if the coordinator does not run here (it runs on the oldest
   * node of the role), or with a timeout if it does not answer within {@code timeout}.
   */
  public CompletionStage<CoordinatorBacklog> coordinatorBacklog(Duration timeout) {
    // Asked of the local singleton, not through the proxy: the query and its answer are local only.
    return Adapter.toClassic(system).actorSelection("/system/" + coordinatorName(typeKey.name()) + "/singleton")
        .resolveOne(timeout)
        .thenCompose(ref -> AskPattern.<ShardCoordinator.GetBacklog, CoordinatorBacklog>ask(Adapter.toTyped(ref),
            ShardCoordinator.GetBacklog::new, timeout, system.scheduler()));
  }

  /**
   * Every region of the type that the coordinator knows, with its shards' entity counts; regions
   * slower than {@code timeout} are listed as failed. Fails only if the coordinator does not answer.
   */
  public CompletionStage<ClusterShardingStats> clusterStats(Duration timeout) {
    Address self = Cluster.get(Adapter.toClassic(system)).selfAddress();
    return AskPattern.<Object, Object>ask(coordinator, GetCurrentRegions::new, timeout, system.scheduler())
        .thenCompose(reply -> {
          Set<ActorRef<Object>> regions = ((CurrentRegions) reply).regions();
          Map<Address, Map<String, Integer>> answered = new ConcurrentHashMap<>();
          Set<Address> failed = ConcurrentHashMap.newKeySet();
          List<CompletableFuture<Void>> asks = new ArrayList<>();
          for (ActorRef<Object> region : regions) {
            Address address = NodeAddress.of(region, self);
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
