package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testkit.TestCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.management.javadsl.PekkoManagement;
import org.junit.jupiter.api.Test;

/**
 * The checks through Pekko Management's own routes, configured the way the docs show: Pekko
 * Management creates them from their class names, and {@code /ready} answers 500 while the node's
 * region has not registered and 200 once it has; {@code /alive} answers 200 throughout.
 */
class ManagementHealthRoutesTest {
  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "Managed");

  static final String MANAGEMENT = """
      pekko.management {
        http { hostname = "127.0.0.1", port = 0 }
        health-checks {
          readiness-checks { shardkit-sharding = "dev.shardkit.sharding.ShardingReadinessCheck" }
          liveness-checks { shardkit-sharding = "dev.shardkit.sharding.ShardingLivenessCheck" }
        }
      }
      """;

  static int status(HttpClient http, URI uri) {
    try {
      return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (Exception e) {
      throw new AssertionError("GET " + uri + " failed: " + e, e);
    }
  }

  @Test
  void readyAnswers500UntilTheRegionRegisteredAnd200After() throws Exception {
    Config config = ConfigFactory.parseString(MANAGEMENT)
        .withFallback(ConfigFactory.parseString(TestCluster.BASE_CONFIG))
        .withFallback(ConfigFactory.load());
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "Managed", config);
    try {
      // Not a member yet: the type's coordinator, a cluster singleton, cannot start, so the region
      // cannot register.
      ClusterSharding.get(system).start(Entity.of(KEY, Recorder::create));
      int port = PekkoManagement.get(Adapter.toClassic(system)).start().toCompletableFuture()
          .get(30, TimeUnit.SECONDS).port();
      URI ready = URI.create("http://127.0.0.1:" + port + "/ready");
      URI alive = URI.create("http://127.0.0.1:" + port + "/alive");
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      assertEquals(500, status(http, ready), "/ready before the region registered");
      assertEquals(200, status(http, alive), "/alive while the region registers");

      Cluster.get(system).manager().tell(new Join(Cluster.get(system).selfMember().address()));
      TestCluster.await(Duration.ofSeconds(30), () -> status(http, ready) == 200, "/ready answers 200");
      assertEquals(200, status(http, alive), "/alive once registered");
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
