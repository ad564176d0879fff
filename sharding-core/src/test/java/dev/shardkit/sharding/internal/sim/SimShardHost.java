package dev.shardkit.sharding.internal.sim;

import dev.shardkit.sharding.internal.shard.ShardCarryOver;
import dev.shardkit.sharding.internal.shard.ShardConfig;
import dev.shardkit.sharding.internal.shard.ShardDriver;
import dev.shardkit.sharding.internal.shard.ShardInput;
import dev.shardkit.sharding.internal.shard.ShardMachine;
import dev.shardkit.sharding.internal.shard.ShardNotice;
import dev.shardkit.sharding.internal.shard.ShardPorts;
import dev.shardkit.sharding.internal.shard.ShardProtocol;
import dev.shardkit.sharding.internal.shard.ShardProtocol.EntitiesLive;
import dev.shardkit.sharding.internal.shard.ShardProtocol.ShardSnapshot;
import dev.shardkit.sharding.internal.shard.ShardTimer;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * One shard in the simulation: the real {@link ShardMachine} run by the real {@link ShardDriver},
 * with {@link ShardPorts} carried out by the simulation. Entities are {@link SimEntity}
 * incarnations; the delivery gate is the one its node's keeper keeps
 * ({@link dev.shardkit.sharding.internal.gate.SimGateHost}). A message for an active entity takes the
 * fast lane ({@link ShardMachine#activeFor}), as the shard actor's delivery does.
 */
final class SimShardHost implements ShardPorts<SimEntity> {

  private final ClusterSim sim;
  final SimEntityType type;
  final int node;
  final ActorRef<Object> ref;
  final ActorRef<Object> region;
  final String shardId;
  final ShardMachine<SimEntity> machine;
  private final ShardDriver<SimEntity> driver;
  private final Map<ShardTimer, Long> timers = new EnumMap<>(ShardTimer.class);
  private boolean parked;
  boolean stopped;

  SimShardHost(ClusterSim sim, SimEntityType type, int node, ActorRef<Object> ref, ActorRef<Object> region,
      String shardId, int entityLimit) {
    this.sim = sim;
    this.type = type;
    this.node = node;
    this.ref = ref;
    this.region = region;
    this.shardId = shardId;
    ShardConfig cfg = new ShardConfig(type.name, shardId, type.settings.bufferSize(), type.remembering(),
        Duration.ofMillis(200), Duration.ofSeconds(2), Optional.empty(), type.limit.isPresent(), 10,
        Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofSeconds(5), "simulated store");
    this.machine = new ShardMachine<>(cfg, new ShardCarryOver(entityLimit).take(), e -> e.id);
    this.driver = new ShardDriver<>(machine, this);
  }

  /** What the shard receives, as the shard actor turns it into its machine's input. */
  void receive(Object message) {
    if (stopped) {
      return;
    }
    if (message instanceof Deliver d) {
      SimEntity entity = machine.activeFor(d.entityId(), 0L);
      if (entity != null) {
        tell(entity, d.message());
      } else {
        run(new ShardInput.Deliver<>(d.entityId(), d.message()));
      }
    } else if (message == ShardProtocol.HandOff.INSTANCE) {
      run(new ShardInput.HandOff<>());
    } else if (message == ShardProtocol.CancelHandOff.INSTANCE) {
      run(new ShardInput.CancelHandOff<>());
    } else if (message instanceof ShardProtocol.EntityLimit l) {
      run(new ShardInput.EntityLimit<>(l.limit()));
    } else if (message instanceof ShardInput<?> input) {
      @SuppressWarnings("unchecked")
      ShardInput<SimEntity> in = (ShardInput<SimEntity>) input;
      run(in);
    }
  }

  void start() {
    run(new ShardInput.Start<>());
  }

  private void run(ShardInput<SimEntity> input) {
    sim.trace(node, "shard " + shardId, input, List.of());
    driver.run(input, sim.now());
  }

  // ---- the ports

  @Override
  public ShardInput<SimEntity> startEntity(String entityId, List<Object> messages) {
    if (!sim.gateOpen(node)) {
      return new ShardInput.EntityStartRefused<>(entityId, messages);
    }
    SimEntity entity = sim.newEntity(this, entityId);
    for (Object m : messages) {
      tell(entity, m);
    }
    return new ShardInput.EntityStarted<>(entityId, entity);
  }

  @Override
  public void tell(SimEntity entity, Object message) {
    sim.toEntity(entity, message);
  }

  @Override
  public void stop(SimEntity entity) {
    sim.toEntity(entity, SimEntity.STOP);
  }

  @Override
  public ShardInput<SimEntity> rememberLoad(long readId) {
    if (!sim.gateOpen(node)) {
      return new ShardInput.RememberRefused<>(readId);
    }
    type.rememberStore.read(node, shardId, ids -> receive(new ShardInput.RememberLoaded<SimEntity>(readId, ids)),
        failure -> receive(new ShardInput.RememberLoadFailed<SimEntity>(readId, failure)));
    return null;
  }

  @Override
  public ShardInput<SimEntity> rememberUpdate(long batchId, Set<String> started, Set<String> stopped) {
    if (!sim.gateOpen(node)) {
      return new ShardInput.RememberRefused<>(batchId);
    }
    type.rememberStore.update(node, shardId, started, stopped,
        () -> receive(new ShardInput.RememberWritten<SimEntity>(batchId)),
        failure -> receive(new ShardInput.RememberWriteFailed<SimEntity>(batchId, failure)));
    return null;
  }

  @Override
  public void parkOnGate() {
    if (!parked) {
      parked = true;
      sim.whenGateOpen(node, () -> {
        parked = false;
        receive(new ShardInput.GateOpened<SimEntity>());
      });
    }
  }

  @Override
  public void tellRegion(EntitiesLive live) {
    sim.send(node, region, live);
  }

  @Override
  public void replySnapshot(ActorRef<Object> to, ShardSnapshot snapshot) {}

  @Override
  public void startTimer(ShardTimer key, long generation, Duration delay) {
    timers.put(key, generation);
    sim.after(node, delay.toNanos(), () -> {
      Long current = timers.get(key);
      if (!stopped && current != null && current == generation) {
        timers.remove(key);
        receive(new ShardInput.TimerFired<SimEntity>(key, generation));
      }
    });
  }

  @Override
  public void cancelTimer(ShardTimer key) {
    timers.remove(key);
  }

  @Override
  public void drop(Object message, String reason) {
    sim.dropped(node, message, reason);
  }

  @Override
  public void report(ShardNotice notice) {
    sim.noticed(node, notice);
  }

  @Override
  public void stopped() {
    stopped = true;
    sim.shardStopped(this);
  }
}
