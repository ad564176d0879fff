package dev.shardkit.sharding.testkit;

/** Test messages marked with this are serialized with Jackson CBOR (see TestCluster's config). */
public interface CborSerializable {}
