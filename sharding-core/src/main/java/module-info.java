/**
 * shardkit's cluster sharding: the API ({@code dev.shardkit.sharding}) and the store SPI
 * ({@code dev.shardkit.sharding.spi}). The implementation ({@code internal}) is exported only to
 * shardkit's other modules, and to Pekko, which creates its serializers and its mailbox by name
 * from {@code reference.conf}.
 */
// The qualified exports name shardkit's other modules, which this one is compiled without.
@SuppressWarnings("module")
module dev.shardkit.sharding {
  // The API's signatures use these modules' types: ActorSystem, ActorRef and Behavior, the
  // classic Address, Config.
  requires transitive pekko.actor;
  requires transitive pekko.actor.typed;
  requires transitive pekko.cluster;
  requires transitive pekko.cluster.typed;
  requires transitive typesafe.config;
  requires transitive scala.library;
  // Only annotations: needed to compile against the API, not to run it.
  requires static transitive org.jspecify;
  requires pekko.cluster.tools;
  requires pekko.coordination;
  requires pekko.remote;
  requires pekko.slf4j;
  requires org.slf4j;
  // Pekko's jars are automatic modules, which cannot say which JDK modules they need; an
  // application on the module path resolves these because shardkit requires them.
  requires jdk.unsupported;
  // The telemetry's JFR binding, on by default.
  requires jdk.jfr;

  exports dev.shardkit.sharding;
  exports dev.shardkit.sharding.spi;

  // The runtime, to shardkit's own modules only; and to Pekko the two packages whose classes it
  // creates by the names reference.conf gives it: the serializers (wire) and the mailbox (gate).
  exports dev.shardkit.sharding.internal to dev.shardkit.sharding.ddata, dev.shardkit.sharding.persistence, dev.shardkit.sharding.testkit;
  exports dev.shardkit.sharding.internal.coordinator to dev.shardkit.sharding.ddata, dev.shardkit.sharding.persistence, dev.shardkit.sharding.testkit;
  exports dev.shardkit.sharding.internal.delivery to dev.shardkit.sharding.ddata, dev.shardkit.sharding.persistence, dev.shardkit.sharding.testkit;
  exports dev.shardkit.sharding.internal.gate to dev.shardkit.sharding.ddata, dev.shardkit.sharding.persistence, dev.shardkit.sharding.testkit, pekko.actor;
  exports dev.shardkit.sharding.internal.health to dev.shardkit.sharding.ddata, dev.shardkit.sharding.persistence, dev.shardkit.sharding.testkit;
  exports dev.shardkit.sharding.internal.machine to dev.shardkit.sharding.ddata, dev.shardkit.sharding.persistence, dev.shardkit.sharding.testkit;
  exports dev.shardkit.sharding.internal.membership to dev.shardkit.sharding.ddata, dev.shardkit.sharding.persistence, dev.shardkit.sharding.testkit;
  exports dev.shardkit.sharding.internal.region to dev.shardkit.sharding.ddata, dev.shardkit.sharding.persistence, dev.shardkit.sharding.testkit;
  exports dev.shardkit.sharding.internal.shard to dev.shardkit.sharding.ddata, dev.shardkit.sharding.persistence, dev.shardkit.sharding.testkit;
  exports dev.shardkit.sharding.internal.store to dev.shardkit.sharding.ddata, dev.shardkit.sharding.persistence, dev.shardkit.sharding.testkit;
  exports dev.shardkit.sharding.internal.telemetry to dev.shardkit.sharding.ddata, dev.shardkit.sharding.persistence, dev.shardkit.sharding.testkit;
  exports dev.shardkit.sharding.internal.util to dev.shardkit.sharding.ddata, dev.shardkit.sharding.persistence, dev.shardkit.sharding.testkit;
  exports dev.shardkit.sharding.internal.wire to dev.shardkit.sharding.ddata, dev.shardkit.sharding.persistence, dev.shardkit.sharding.testkit, pekko.actor;
}
