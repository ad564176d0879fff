package dev.shardkit.benchmarks.harness;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/**
 * Cluster nodes for benchmark runs, configured identically whichever library runs on them: the
 * default dispatcher, Artery on 127.0.0.1, {@code serialize-messages = off} (a local message is
 * never serialized, as in production), Jackson CBOR for the workloads' messages.
 */
public final class Nodes {
  private Nodes() {}

  public static final String SYSTEM_NAME = "Bench";

  /** The configuration every benchmark node starts from. */
  public static final String BASE_CONFIG = """
      pekko {
        loglevel = INFO
        loggers = ["org.apache.pekko.event.slf4j.Slf4jLogger"]
        logging-filter = "org.apache.pekko.event.slf4j.Slf4jLoggingFilter"
        actor {
          provider = cluster
          serialize-messages = off
          serialization-bindings { "dev.shardkit.benchmarks.workloads.CborSerializable" = jackson-cbor }
        }
        remote.artery.canonical { hostname = 127.0.0.1, port = 0 }
        cluster {
          jmx.multi-mbeans-in-same-jvm = on
          downing-provider-class = "org.apache.pekko.cluster.sbr.SplitBrainResolverProvider"
        }
        coordinated-shutdown.exit-jvm = off
        log-dead-letters = 10
        log-dead-letters-during-shutdown = off
      }
      """;

  /** The base configuration under {@code extra} (which wins), over the class path's defaults. */
  public static Config config(String extra, List<String> roles) {
    StringBuilder rolesConf = new StringBuilder("pekko.cluster.roles = [");
    for (int i = 0; i < roles.size(); i++) {
      rolesConf.append(i == 0 ? "" : ",").append('"').append(roles.get(i)).append('"');
    }
    rolesConf.append("]\n");
    return ConfigFactory.parseString(extra + "\n" + rolesConf)
        .withFallback(ConfigFactory.parseString(BASE_CONFIG))
        .withFallback(ConfigFactory.load())
        .resolve();
  }

  /** Starts a node and joins it to {@code seed} (itself when empty). */
  public static <T> ActorSystem<T> start(Behavior<T> guardian, String extraConfig, List<String> roles,
      Address seed) {
    ActorSystem<T> system = ActorSystem.create(guardian, SYSTEM_NAME, config(extraConfig, roles));
    Cluster cluster = Cluster.get(system);
    cluster.manager().tell(new Join(seed != null ? seed : cluster.selfMember().address()));
    return system;
  }

  public static ActorSystem<Void> start(String extraConfig, List<String> roles, Address seed) {
    return start(Behaviors.empty(), extraConfig, roles, seed);
  }

  public static Address address(ActorSystem<?> system) {
    return Cluster.get(system).selfMember().address();
  }

  /** Waits until {@code system} sees {@code count} members Up. */
  public static void awaitUp(ActorSystem<?> system, int count, Duration max) {
    await(max, () -> upCount(system) == count, system.address() + " sees " + count + " members Up");
  }

  public static int upCount(ActorSystem<?> system) {
    int up = 0;
    for (var m : Cluster.get(system).state().getMembers()) {
      if (m.status() == MemberStatus.up()) {
        up++;
      }
    }
    return up;
  }

  /** Polls a condition every 10 ms until it holds, or fails naming {@code what}. */
  public static void await(Duration max, BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + max.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out after " + max + " waiting until " + what);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting until " + what, e);
      }
    }
  }

  /** Terminates systems, youngest first, waiting for each. */
  public static void terminate(List<? extends ActorSystem<?>> systems) {
    for (int i = systems.size() - 1; i >= 0; i--) {
      ActorSystem<?> s = systems.get(i);
      s.terminate();
      try {
        s.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        // A system that does not stop in time must not hide the run's figures.
      }
    }
  }
}
