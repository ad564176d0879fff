package dev.shardkit.examples.docs.migrating.pekko;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;

/** How the migration guide's application starts its carts on Pekko's sharding, before it moves. */
@SuppressWarnings("unused")
final class OnPekko {
  private OnPekko() {}

  static void run(ActorSystem<Void> system) {
    // docs:start start
    // At start-up, on every node:
    ClusterSharding sharding = ClusterSharding.get(system);
    sharding.init(Entity.of(Cart.TYPE, Cart::create).withRole("cart").withStopMessage(Cart.Stop.INSTANCE));
    // Anywhere:
    EntityRef<Cart.Command> cart = sharding.entityRefFor(Cart.TYPE, "cart-17");
    cart.tell(new Cart.AddItem("book"));
    CompletionStage<List<String>> items = cart.ask(Cart.GetItems::new, Duration.ofSeconds(3));
    // docs:end start
  }
}
