package dev.shardkit.sharding.testkit.examples;

/** The application's marker for messages that Jackson CBOR serializes (bound in its configuration). */
public interface CborSerializable {}
