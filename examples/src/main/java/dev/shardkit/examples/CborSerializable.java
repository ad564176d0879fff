package dev.shardkit.examples;

/**
 * Marker for the demo's messages: bound to Pekko's {@code jackson-cbor} serializer in the demo's
 * configuration, so they can cross between nodes (and do, with {@code serialize-messages = on},
 * even between actors of one node).
 */
public interface CborSerializable {}
