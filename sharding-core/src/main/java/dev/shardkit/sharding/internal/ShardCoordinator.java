package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.RegionInfo;
import dev.shardkit.sharding.ShardAllocation;
import dev.shardkit.sharding.ShardAllocationStrategy;
import dev.shardkit.sharding.internal.ShardingProtocol.CurrentRegions;
import dev.shardkit.sharding.internal.ShardingProtocol.GetCurrentRegions;
import dev.shardkit.sharding.internal.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.ShardingProtocol.RegisterProxy;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.slf4j.Logger;

/**
 * The singleton that decides where shards live, one per entity type, on the oldest node of the
 * type's role. It keeps {@link CoordinatorState} in a {@link CoordinatorStateStore}: every change
 * is stored first, then applied, then announced, so a successor that loads the store never gives
 * a shard a second home.
 *
 * <p>States: <em>loading</em> (reading the store; requests wait in a bounded stash),
 * <em>active</em>, and <em>storing</em> (one event is being written; requests wait).
 */
public final class ShardCoordinator {

  /** Sent by the singleton manager when the coordinator must hand over. Local only. */
  public enum Stop implements NoSerializationVerificationNeeded { INSTANCE }

  private record Loaded(CoordinatorState state) implements NoSerializationVerificationNeeded {}

  private record LoadFailed(Throwable cause) implements NoSerializationVerificationNeeded {}

  private enum RetryLoad implements NoSerializationVerificationNeeded { INSTANCE }

  private record Stored(CoordinatorEvent event, Runnable afterwards) implements NoSerializationVerificationNeeded {}

  private record StoreFailed(CoordinatorEvent event, Runnable afterwards, Throwable cause)
      implements NoSerializationVerificationNeeded {}

  private record RetryStore(CoordinatorEvent event, Runnable afterwards) implements NoSerializationVerificationNeeded {}

  private record Terminated(ActorRef<Object> ref) implements NoSerializationVerificationNeeded {}

  private static final Duration MIN_BACKOFF = Duration.ofMillis(100);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);

  private final ActorContext<Object> context;
  private final TimerScheduler<Object> timers;
  private final StashBuffer<Object> stash;
  private final String typeName;
  private final ShardAllocationStrategy strategy;
  private final CoordinatorStateStore store;
  private final Logger log;
  private final Cluster cluster;
  private CoordinatorState state = CoordinatorState.empty();
  private int failures;

  private ShardCoordinator(ActorContext<Object> context, TimerScheduler<Object> timers, StashBuffer<Object> stash,
      String typeName, ShardAllocationStrategy strategy, CoordinatorStateStore store) {
    this.context = context;
    this.timers = timers;
    this.stash = stash;
    this.typeName = typeName;
    this.strategy = strategy;
    this.store = store;
    this.log = context.getLog();
    this.cluster = Cluster.get(Adapter.toClassic(context.getSystem()));
  }

  public static Behavior<Object> create(String typeName, ShardAllocationStrategy strategy, CoordinatorStateStore store,
      int stashCapacity) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> Behaviors.withStash(stashCapacity, stash -> {
      ShardCoordinator coordinator = new ShardCoordinator(ctx, timers, stash, typeName, strategy, store);
      ctx.getLog().info("Coordinator of entity type [{}] started on {}; state store: {}; allocation: {}", typeName,
          coordinator.cluster.selfAddress(), store.describe(), strategy);
      return coordinator.loading();
    })));
  }

  // ---- states

  private Behavior<Object> loading() {
    context.pipeToSelf(store.load(), (loaded, error) -> error == null ? new Loaded(loaded) : new LoadFailed(error));
    return Behaviors.receive(Object.class)
        .onMessage(Loaded.class, l -> {
          failures = 0;
          state = l.state();
          state.regions().keySet().forEach(this::watch);
          state.proxies().forEach(this::watch);
          log.debug("Coordinator of [{}] loaded {}", typeName, state);
          return stash.unstashAll(active());
        })
        .onMessage(LoadFailed.class, f -> {
          Duration backoff = nextBackoff();
          log.warn("Coordinator of [{}] could not load its state ({}); retrying in {} ms", typeName, f.cause(),
              backoff.toMillis());
          timers.startSingleTimer(RetryLoad.INSTANCE, backoff);
          return Behaviors.same();
        })
        .onMessageEquals(RetryLoad.INSTANCE, this::loading)
        .onMessageEquals(Stop.INSTANCE, Behaviors::stopped)
        .onAnyMessage(this::stashOrDrop)
        .build();
  }

  private Behavior<Object> active() {
    return Behaviors.receive(Object.class)
        .onMessage(Register.class, r -> onRegister(r.region(), false))
        .onMessage(RegisterProxy.class, r -> onRegister(r.proxy(), true))
        .onMessage(GetShardHome.class, this::onGetShardHome)
        .onMessage(Terminated.class, this::onTerminated)
        .onMessage(GetCurrentRegions.class, g -> {
          g.replyTo().tell(new CurrentRegions(Set.copyOf(state.regions().keySet())));
          return Behaviors.same();
        })
        .onMessageEquals(Stop.INSTANCE, Behaviors::stopped)
        .onAnyMessage(m -> {
          log.debug("Coordinator of [{}] ignores unexpected {}", typeName, m);
          return Behaviors.same();
        })
        .build();
  }

  /** Writes one event; everything else waits until it is stored and applied. */
  private Behavior<Object> storing(CoordinatorEvent event, Runnable afterwards) {
    CoordinatorState after = state.applied(event);
    context.pipeToSelf(store.store(event, after),
        (ok, error) -> error == null ? new Stored(event, afterwards) : new StoreFailed(event, afterwards, error));
    return Behaviors.receive(Object.class)
        .onMessage(Stored.class, s -> {
          failures = 0;
          state = after;
          s.afterwards().run();
          return stash.unstashAll(active());
        })
        .onMessage(StoreFailed.class, f -> {
          Duration backoff = nextBackoff();
          log.warn("Coordinator of [{}] could not store {} ({}); retrying in {} ms; known shards keep working",
              typeName, f.event(), f.cause(), backoff.toMillis());
          timers.startSingleTimer(new RetryStore(f.event(), f.afterwards()), backoff);
          return Behaviors.same();
        })
        .onMessage(RetryStore.class, r -> storing(r.event(), r.afterwards()))
        .onMessageEquals(Stop.INSTANCE, Behaviors::stopped)
        .onAnyMessage(this::stashOrDrop)
        .build();
  }

  private Behavior<Object> stashOrDrop(Object message) {
    if (stash.isFull()) {
      // Regions repeat registrations and home requests, so a dropped one is asked again.
      log.warn("Coordinator of [{}] is busy and its stash is full; dropping {}", typeName, message);
    } else {
      stash.stash(message);
    }
    return Behaviors.same();
  }

  private Duration nextBackoff() {
    failures++;
    long millis = Math.min(MAX_BACKOFF.toMillis(), MIN_BACKOFF.toMillis() << Math.min(failures - 1, 16));
    return Duration.ofMillis(millis);
  }

  // ---- handlers

  private Behavior<Object> onRegister(ActorRef<Object> region, boolean proxy) {
    boolean known = proxy ? state.proxies().contains(region) : state.regions().containsKey(region);
    Runnable ack = () -> region.tell(new RegisterAck(context.getSelf()));
    if (known) {
      ack.run();
      return Behaviors.same();
    }
    if (proxy && state.regions().containsKey(region)) {
      log.warn("Coordinator of [{}]: {} registered as a region before; ignoring its proxy registration", typeName,
          region);
      return Behaviors.same();
    }
    watch(region);
    log.info("Coordinator of [{}]: {} {} registered", typeName, proxy ? "proxy" : "region", region.path());
    return storing(proxy ? new ProxyRegistered(region) : new RegionRegistered(region), ack);
  }

  private Behavior<Object> onGetShardHome(GetShardHome get) {
    ActorRef<Object> home = state.shards().get(get.shardId());
    if (home != null) {
      get.region().tell(new ShardHome(get.shardId(), home));
      return Behaviors.same();
    }
    if (state.regions().isEmpty()) {
      // The region asks again on its retry tick; by then a region may have registered.
      return Behaviors.same();
    }
    Map<ActorRef<Object>, RegionInfo> infos = regionInfos();
    ActorRef<Object> chosen;
    try {
      RegionInfo requester = infos.containsKey(get.region()) ? infos.get(get.region()) : info(get.region(), Map.of());
      RegionInfo choice = strategy.allocateShard(requester, get.shardId(), allocation(infos));
      chosen = infos.entrySet().stream().filter(e -> e.getValue().equals(choice)).map(Map.Entry::getKey)
          .findFirst().orElse(null);
      if (chosen == null) {
        log.error("Coordinator of [{}]: allocation strategy {} chose {} for shard [{}], which is not a registered "
            + "region; the shard stays unallocated", typeName, strategy, choice, get.shardId());
        return Behaviors.same();
      }
    } catch (RuntimeException e) {
      log.error("Coordinator of [{}]: allocation strategy {} failed for shard [{}]; the shard stays unallocated",
          typeName, strategy, get.shardId(), e);
      return Behaviors.same();
    }
    final ActorRef<Object> home2 = chosen;
    return storing(new ShardHomeAllocated(get.shardId(), chosen), () -> {
      ShardHome answer = new ShardHome(get.shardId(), home2);
      // The new home hears it too, so it starts the shard before the first forwarded message.
      if (!home2.equals(get.region())) {
        home2.tell(answer);
      }
      get.region().tell(answer);
    });
  }

  private Behavior<Object> onTerminated(Terminated t) {
    if (state.regions().containsKey(t.ref())) {
      log.info("Coordinator of [{}]: region {} is gone with {} shard(s)", typeName, t.ref().path(),
          state.regions().get(t.ref()).size());
      return storing(new RegionTerminated(t.ref()), () -> { });
    }
    if (state.proxies().contains(t.ref())) {
      return storing(new ProxyTerminated(t.ref()), () -> { });
    }
    return Behaviors.same();
  }

  private void watch(ActorRef<Object> ref) {
    context.watchWith(ref, new Terminated(ref));
  }

  // ---- allocation view

  private Map<ActorRef<Object>, RegionInfo> regionInfos() {
    List<Member> byAge = new ArrayList<>();
    cluster.state().getMembers().forEach(m -> {
      if (m.status() == MemberStatus.up() || m.status() == MemberStatus.weaklyUp() || m.status() == MemberStatus.leaving()) {
        byAge.add(m);
      }
    });
    byAge.sort(Member.ageOrdering()::compare);
    Map<Address, Member> members = new HashMap<>();
    Map<Address, Integer> ranks = new HashMap<>();
    for (int i = 0; i < byAge.size(); i++) {
      members.put(byAge.get(i).address(), byAge.get(i));
      ranks.put(byAge.get(i).address(), i);
    }
    Map<ActorRef<Object>, RegionInfo> infos = new LinkedHashMap<>();
    for (ActorRef<Object> region : state.regions().keySet()) {
      infos.put(region, info(region, members, ranks));
    }
    return infos;
  }

  private RegionInfo info(ActorRef<Object> region, Map<Address, Member> members) {
    return info(region, members, Map.of());
  }

  private RegionInfo info(ActorRef<Object> region, Map<Address, Member> members, Map<Address, Integer> ranks) {
    Address address = addressOf(region);
    Member member = members.get(address);
    Set<String> roles = member == null ? Set.of() : scala.jdk.javaapi.CollectionConverters.asJava(member.roles());
    return new RegionInfo(address, roles, ranks.getOrDefault(address, Integer.MAX_VALUE));
  }

  private Address addressOf(ActorRef<Object> ref) {
    Address address = ref.path().address();
    return address.hasGlobalScope() ? address : cluster.selfAddress();
  }

  private ShardAllocation allocation(Map<ActorRef<Object>, RegionInfo> infos) {
    Map<RegionInfo, List<String>> view = new HashMap<>();
    state.regions().forEach((region, shards) -> view.put(infos.get(region), shards));
    return ShardAllocation.of(view);
  }
}
