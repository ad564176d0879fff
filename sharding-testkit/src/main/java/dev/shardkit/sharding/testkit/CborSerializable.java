package dev.shardkit.sharding.testkit;

/**
 * A marker for test messages: {@link TestCluster#BASE_CONFIG} (and so {@link ShardingTestKit})
 * binds it to Pekko's Jackson CBOR serializer. Messages of an application's own are better bound
 * to its own serializer in the extra configuration of {@link TestCluster#add} or
 * {@link ShardingTestKit#create(String)}, as in production.
 */
public interface CborSerializable {}
