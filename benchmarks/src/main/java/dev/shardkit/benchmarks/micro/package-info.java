/**
 * JMH micro-benchmarks of shardkit's pure parts (extractors, the routing table, the allocation
 * strategy, the coordinator state) at the sizes the issue names, and the launcher that runs them
 * in a JVM of their own.
 */
package dev.shardkit.benchmarks.micro;
