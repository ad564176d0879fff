package dev.shardkit.systemtest;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.ClusterShardingStats;
import dev.shardkit.sharding.EntityTypeKey;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;

/** What every node process of the system tests shares: its configuration, deadline and output. */
final class NodeSupport {
  private NodeSupport() {}

  /** Exits the process after {@code seconds}, so no node outlives a test that died. */
  static void startDeadline(String name, long seconds) {
    Thread t = new Thread(() -> {
      try {
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
      } catch (InterruptedException e) {
        return;
      }
      out("DEADLINE node=" + name + ": exiting after " + seconds + " s");
      Runtime.getRuntime().halt(3);
    }, "deadline");
    t.setDaemon(true);
    t.start();
  }

  private static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(150);

  /**
   * Waits until {@code nodes} members are Up and each has a region of the type registered with
   * the coordinator; prints {@code FAILED} and exits if that takes too long.
   */
  static void awaitFormed(ActorSystem<Void> system, ClusterSharding sharding, EntityTypeKey<?> type, int nodes)
      throws InterruptedException {
    long deadline = System.nanoTime() + FORMATION_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      long up = StreamSupport.stream(Cluster.get(system).state().getMembers().spliterator(), false)
          .filter(m -> m.status().equals(MemberStatus.up())).count();
      if (up == nodes) {
        try {
          ClusterShardingStats stats = sharding.clusterShardingStats(type, Duration.ofSeconds(5))
              .toCompletableFuture().get(15, TimeUnit.SECONDS);
          if (stats.regions().size() == nodes && stats.failedRegions().isEmpty()) {
            return;
          }
        } catch (Exception e) {
          // The coordinator is not reachable yet; ask again.
        }
      }
      Thread.sleep(500);
    }
    out("FAILED formation: cluster or regions not complete after " + FORMATION_TIMEOUT.toSeconds() + " s");
    Runtime.getRuntime().halt(5);
  }

  /** True if the coordinator singleton of the type runs in this node. */
  static boolean runsCoordinator(ActorSystem<?> system, EntityTypeKey<?> type) {
    try {
      org.apache.pekko.actor.typed.javadsl.Adapter.toClassic(system)
          .actorSelection("/system/shardkit-coordinator-" + type.name() + "/singleton")
          .resolveOne(Duration.ofSeconds(3)).toCompletableFuture().get(5, TimeUnit.SECONDS);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  /** Prints one protocol line for the test. */
  static synchronized void out(String line) {
    System.out.println(line);
    System.out.flush();
  }

  /**
   * A cluster node on 127.0.0.1 with the split-brain resolver (keep-majority) and
   * {@code serialize-messages = on}.
   *
   * @param extra configuration that takes precedence over the rest
   */
  static Config config(String systemName, int port, List<Integer> seedPorts, String extra) {
    String seeds = seedPorts.stream()
        .map(p -> "\"pekko://" + systemName + "@127.0.0.1:" + p + "\"")
        .collect(Collectors.joining(", "));
    return ConfigFactory.parseString(extra).withFallback(ConfigFactory.parseString("""
        pekko {
          loglevel = WARNING
          loggers = ["org.apache.pekko.event.slf4j.Slf4jLogger"]
          logging-filter = "org.apache.pekko.event.slf4j.Slf4jLoggingFilter"
          actor {
            provider = cluster
            serialize-messages = on
            serialization-bindings {
              "dev.shardkit.systemtest.SeqCounter$CborSerializable" = jackson-cbor
            }
          }
          remote.artery {
            canonical {
              hostname = "127.0.0.1"
              port = %d
            }
          }
          cluster {
            seed-nodes = [%s]
            downing-provider-class = "org.apache.pekko.cluster.sbr.SplitBrainResolverProvider"
            split-brain-resolver.active-strategy = keep-majority
            # A loaded 2-core machine can pause a JVM for seconds (JIT, GC, several JVMs starting):
            # do not take that for a crash.
            failure-detector.acceptable-heartbeat-pause = 10s
          }
          coordinated-shutdown.exit-jvm = off
        }
        """.formatted(port, seeds))).withFallback(ConfigFactory.load());
  }
}
