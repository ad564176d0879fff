package dev.shardkit.sharding.internal.sim;

import com.typesafe.config.ConfigFactory;
import java.util.HashMap;
import java.util.Map;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * References to the simulated nodes' regions and coordinators, resolved from their paths by one
 * actor system per JVM (that can resolve remote references), as the coordinator's unit tests make
 * theirs: the coordinator's state and protocol carry references, and these compare, hash and print
 * as real ones. Nothing is ever sent to them. Thread-safe: runners of seeds share it.
 */
final class SimRefs {
  private static ActorSystem<Void> system;
  private static final Map<String, ActorRef<Object>> resolved = new HashMap<>();

  private SimRefs() {}

  /** The address of the simulated node with this number; each node that joins has a new one. */
  static Address address(int node) {
    return new Address("pekko", "Sim", "127.0.0.1", 27000 + node);
  }

  static ActorRef<Object> region(int node, String typeName) {
    return resolve(address(node) + "/system/shardkit-region-" + typeName);
  }

  /** The coordinator of one singleton incarnation, {@code uid} telling incarnations on one node apart. */
  static ActorRef<Object> coordinator(int node, String typeName, int uid) {
    return resolve(address(node) + "/system/shardkit-coordinator-" + typeName + "/singleton/coordinator#" + uid);
  }

  /** The singleton proxy of a type's coordinator on a node, as its region knows it. */
  static ActorRef<Object> proxy(int node, String typeName) {
    return resolve(address(node) + "/system/shardkit-coordinator-" + typeName + "Proxy");
  }

  /** A shard's {@code uid}-th incarnation on a node, a child of its region. */
  static ActorRef<Object> shard(int node, String typeName, String shardId, int uid) {
    return resolve(address(node) + "/system/shardkit-region-" + typeName + "/" + shardId + "#" + uid);
  }

  /** The gate keeper of a node. */
  static ActorRef<Object> keeper(int node) {
    return resolve(address(node) + "/system/shardkit-gate");
  }

  /** A region's {@code k}-th link on a node. */
  static ActorRef<Object> link(int node, String typeName, int k) {
    return resolve(address(node) + "/system/shardkit-region-" + typeName + "/link-" + k);
  }

  /** Who waits for a node's region of a type to have shut down, as coordinated shutdown does. */
  static ActorRef<Object> shutdownWaiter(int node, String typeName) {
    return resolve(address(node) + "/system/shutdown-waiter" + (typeName.equals(CoordinatorOnlySim.TYPE) ? ""
        : "-" + typeName));
  }

  private static synchronized ActorRef<Object> resolve(String path) {
    ActorRef<Object> ref = resolved.get(path);
    if (ref == null) {
      if (system == null) {
        system = ActorSystem.create(Behaviors.empty(), "SimRefs", ConfigFactory.parseString(
            "pekko.actor.provider = cluster\npekko.remote.artery.canonical.port = 0\npekko.daemonic = on\n"
                + "pekko.loglevel = WARNING").withFallback(ConfigFactory.load()));
      }
      ref = ActorRefResolver.get(system).resolveActorRef(path);
      resolved.put(path, ref);
    }
    return ref;
  }
}
