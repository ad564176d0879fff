package dev.shardkit.modulepathapp;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardingEnvelope;
import dev.shardkit.sharding.ddata.DDataCoordinatorStateStoreProvider;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.Serializers;

/**
 * One node, one entity type in the default ddata store mode: asks three entities and prints their
 * answers, which module each part was loaded from, and a ShardingEnvelope serialized and read
 * back; exits with 0 only if all of that worked.
 */
public final class ModulePathApp {

  public record Ping(String text, ActorRef<String> replyTo) {}

  private static Behavior<Ping> echo(String entityId) {
    return Behaviors.receive(Ping.class)
        .onMessage(Ping.class, ping -> {
          ping.replyTo().tell(entityId + ":" + ping.text());
          return Behaviors.same();
        })
        .build();
  }

  public static void main(String[] args) throws Exception {
    Config config = ConfigFactory.parseString(String.join("\n",
        "pekko.actor.provider = cluster",
        "pekko.remote.artery.canonical.hostname = 127.0.0.1",
        "pekko.remote.artery.canonical.port = 0",
        "pekko.coordinated-shutdown.exit-jvm = off"))
        .withFallback(ConfigFactory.load());
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "modulepath", config);
    int status = 1;
    try {
      Cluster cluster = Cluster.get(system);
      cluster.manager().tell(Join.create(cluster.selfMember().address()));
      EntityTypeKey<Ping> echoKey = EntityTypeKey.create(Ping.class, "Echo");
      ClusterSharding sharding = ClusterSharding.get(system);
      sharding.start(Entity.of(echoKey, ctx -> echo(ctx.entityId())));
      for (int i = 0; i < 3; i++) {
        String text = "ping-" + i;
        String answer = sharding.entityRefFor(echoKey, "e-" + i)
            .ask((ActorRef<String> replyTo) -> new Ping(text, replyTo), Duration.ofSeconds(15))
            .toCompletableFuture().get(30, TimeUnit.SECONDS);
        System.out.println("ANSWER " + answer);
      }

      Module core = ClusterSharding.class.getModule();
      Module app = ModulePathApp.class.getModule();
      System.out.println("MODULES core=" + core.getName()
          + " ddata=" + DDataCoordinatorStateStoreProvider.class.getModule().getName()
          + " app=" + app.getName()
          + " api-exported=" + core.isExported("dev.shardkit.sharding", app)
          + " internal-exported=" + core.isExported("dev.shardkit.sharding.internal", app));

      Serialization serialization = SerializationExtension.get(Adapter.toClassic(system));
      ShardingEnvelope<String> envelope = new ShardingEnvelope<>("e-9", "hello");
      Serializer serializer = serialization.findSerializerFor(envelope);
      byte[] bytes = serialization.serialize(envelope).get();
      Object back = serialization.deserialize(bytes, serializer.identifier(),
          Serializers.manifestFor(serializer, envelope)).get();
      System.out.println("SERIALIZED " + serializer.getClass().getName() + " " + envelope.equals(back));
      status = 0;
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    System.exit(status);
  }
}
