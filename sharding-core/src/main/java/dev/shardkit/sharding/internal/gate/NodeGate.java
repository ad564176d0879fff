package dev.shardkit.sharding.internal.gate;

import com.typesafe.config.Config;
import dev.shardkit.sharding.internal.InternalApi;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Props;

/**
 * A node's {@link DeliveryGate}, its {@link GateKeeper} and the ticker that renews the gate's
 * lease: one set per actor system, created the first time sharding starts a type there, and
 * configured under {@code shardkit.sharding.delivery-gate}.
 *
 * <p>The ticker is a thread of its own rather than a scheduled task: it must run while the actor
 * dispatchers are busy, and it is what tells a pause of the whole process from a busy moment.
 */
@InternalApi
public final class NodeGate implements Extension {

  private static final ExtensionId<NodeGate> ID = new ExtensionId<>() {
    @Override
    public NodeGate createExtension(ActorSystem<?> system) {
      return new NodeGate(system);
    }
  };

  private final DeliveryGate gate;
  private final ActorRef<Object> keeper;

  private NodeGate(ActorSystem<?> system) {
    Config config = system.settings().config().getConfig("shardkit.sharding.delivery-gate");
    Duration threshold = positive(config, "pause-threshold");
    Duration retry = positive(config, "confirm-interval");
    this.gate = new DeliveryGate(System::nanoTime, threshold.toNanos());
    this.keeper = system.systemActorOf(GateKeeper.create(gate, threshold, retry), GateKeeper.NAME, Props.empty());
    startTicker(system, threshold);
  }

  public static NodeGate get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  public DeliveryGate gate() {
    return gate;
  }

  public ActorRef<Object> keeper() {
    return keeper;
  }

  private static Duration positive(Config config, String key) {
    Duration d = config.getDuration(key);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("shardkit.sharding.delivery-gate." + key + " must be positive, got " + d);
    }
    return d;
  }

  /** Ticks five times per threshold: the lease ends only when the ticker was silent for all of it. */
  private void startTicker(ActorSystem<?> system, Duration threshold) {
    long periodMillis = Math.max(1, threshold.toMillis() / 5);
    Thread ticker = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        long paused = gate.tick();
        if (paused >= 0) {
          keeper.tell(new GateKeeper.Paused(paused));
        }
        try {
          Thread.sleep(periodMillis);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "shardkit-pause-detector-" + system.name());
    ticker.setDaemon(true);
    ticker.start();
    system.getWhenTerminated().thenRun(ticker::interrupt);
  }
}
