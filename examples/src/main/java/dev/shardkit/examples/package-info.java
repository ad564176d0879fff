/**
 * Runnable shardkit programs.
 *
 * <ul>
 *   <li>{@link dev.shardkit.examples.ClusterDemo} starts three cluster nodes in one JVM, shares a
 *       {@link dev.shardkit.examples.Counter} entity type between them, sends traffic from every
 *       node and prints where the entities ended up. Run it from the repository root with
 *       {@code mvn -q -pl examples -am compile exec:java}.
 *   <li>{@link dev.shardkit.examples.Node} is one cluster node per process, hosting the
 *       {@link dev.shardkit.examples.Account} entity type; start several of them, in several
 *       terminals, for a cluster. {@link dev.shardkit.examples.Client} joins that cluster without
 *       hosting (a proxy), sends to accounts and prints the answers. Both are configured by
 *       {@code node.conf} (or {@code node-postgres.conf} for the coordinator's state in
 *       PostgreSQL) with the port, seed nodes and roles overridable from the command line or the
 *       environment ({@link dev.shardkit.examples.ExampleOptions}). The README walks through them.
 * </ul>
 */
package dev.shardkit.examples;
