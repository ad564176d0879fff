/**
 * shardkit's coordinator state and remember-entities stores in Pekko Distributed Data
 * ({@code state-store-mode = ddata}). sharding-core creates the providers by the class names
 * {@code reference.conf} gives it; Pekko creates the serializer of {@code internal} the same way.
 */
module dev.shardkit.sharding.ddata {
  requires transitive dev.shardkit.sharding;
  requires pekko.cluster.ddata;
  // lmdbjava's jar names no module: this is the name Java derives from its file name.
  requires lmdbjava;
  requires org.slf4j;

  exports dev.shardkit.sharding.ddata;
  exports dev.shardkit.sharding.ddata.internal to pekko.actor;
}
