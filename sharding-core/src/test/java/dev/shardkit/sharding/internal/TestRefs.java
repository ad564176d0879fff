package dev.shardkit.sharding.internal;

import com.typesafe.config.ConfigFactory;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;

/**
 * References to regions on other nodes, for units that compare and group them by node: resolved
 * from their paths, nothing is ever sent to them.
 */
final class TestRefs {
  private TestRefs() {}

  /** A test kit that can resolve references to other nodes. */
  static ActorTestKit remotingTestKit() {
    return ActorTestKit.create(ConfigFactory.parseString(
        "pekko.actor.provider = cluster\npekko.remote.artery.canonical.port = 0")
        .withFallback(ConfigFactory.load()));
  }

  /** The address of the test node with this number. */
  static Address node(int n) {
    return new Address("pekko", "Test", "127.0.0.1", 25500 + n);
  }

  /** The region of the test node with this number, as {@code testKit}'s system knows it. */
  static ActorRef<Object> region(ActorTestKit testKit, int n) {
    return ActorRefResolver.get(testKit.system()).resolveActorRef(node(n) + "/system/shardkit-region-Test");
  }
}
