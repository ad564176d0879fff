package dev.shardkit.sharding.testsupport;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.remote.RemoteActorRefProvider;
import org.apache.pekko.remote.transport.ThrottlerTransportAdapter;
import scala.concurrent.Await;

/**
 * Cuts and restores the network between nodes of one JVM, with Artery's test transport (needs
 * {@code pekko.remote.artery.advanced.test-mode = on}): a node that blackholes another drops
 * every message to and from it, so each sees the other unreachable while both keep running.
 */
// Artery's test mode takes the blackhole command in the classic transport's (deprecated) form;
// it is the only way to cut a link in one JVM without the multi-node testkit.
@SuppressWarnings("deprecation")
public final class Network {
  public static final String TEST_MODE = "pekko.remote.artery.advanced.test-mode = on\n";

  private Network() {}

  /** From now on, {@code node} and {@code other} hear nothing from each other. */
  public static void cut(ActorSystem<?> node, Address other) {
    command(node, other, ThrottlerTransportAdapter.blackholeThrottleMode());
  }

  /** Undoes {@link #cut}. */
  public static void restore(ActorSystem<?> node, Address other) {
    command(node, other, ThrottlerTransportAdapter.unthrottledThrottleMode());
  }

  private static void command(ActorSystem<?> node, Address other, ThrottlerTransportAdapter.ThrottleMode mode) {
    Object command = new ThrottlerTransportAdapter.SetThrottle(other,
        ThrottlerTransportAdapter.bothDirection(), mode);
    try {
      RemoteActorRefProvider provider = (RemoteActorRefProvider) ((ExtendedActorSystem) Adapter.toClassic(node)).provider();
      Await.result(provider.transport().managementCommand(command),
          scala.concurrent.duration.Duration.create(Duration.ofSeconds(10).toMillis(), TimeUnit.MILLISECONDS));
    } catch (Exception e) {
      throw new AssertionError("could not " + mode + " " + other + " from " + node.address(), e);
    }
  }
}
