package dev.shardkit.examples.docs.migrating;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.ClusterShardingStats;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.HashCodeMessageExtractor;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The migration guide's steps on shardkit, where the compiler checks them; the fields are what the
 * guide has introduced before a step.
 */
@SuppressWarnings("unused")
abstract class Migrated {
  ActorSystem<Void> system;
  ClusterSharding sharding;
  int expectedNodes;

  void startAndSend() {
    // docs:start start
    ClusterSharding sharding = ClusterSharding.get(system);
    sharding.start(Entity.of(Cart.TYPE, Cart::create).withRole("cart").withStopMessage(Cart.Stop.INSTANCE));

    EntityRef<Cart.Command> cart = sharding.entityRefFor(Cart.TYPE, "cart-17");
    cart.tell(new Cart.AddItem("book"));
    CompletionStage<List<String>> items = cart.ask(Cart.GetItems::new, Duration.ofSeconds(3));
    // docs:end start
  }

  void keepShardIds() {
    // docs:start extractor
    HashCodeMessageExtractor<Cart.Command> extractor = new HashCodeMessageExtractor<>(1000);
    sharding.start(Entity.of(Cart.TYPE, Cart::create).withRole("cart").withStopMessage(Cart.Stop.INSTANCE)
        .withMessageExtractor(extractor));
    sharding.startProxy(Cart.TYPE, Optional.of("cart"), extractor);   // on proxy-only JVMs
    // docs:end extractor
  }

  void tests() throws Exception {
    // docs:start stats
    ClusterShardingStats stats = sharding.clusterShardingStats(Cart.TYPE, Duration.ofSeconds(3))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    boolean ready = stats.regions().size() == expectedNodes && stats.failedRegions().isEmpty();
    // docs:end stats
  }
}
