/**
 * Runnable shardkit programs. {@link dev.shardkit.examples.ClusterDemo} starts three cluster nodes
 * in one JVM, shares a {@link dev.shardkit.examples.Counter} entity type between them, sends
 * traffic from every node and prints where the entities ended up. Run it from the repository root
 * with {@code mvn -q -pl examples -am compile exec:java}.
 */
package dev.shardkit.examples;
