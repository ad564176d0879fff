/**
 * shardkit's runtime, not API: nothing under {@code dev.shardkit.sharding.internal} is covered by
 * compatibility promises. It is split by concern, and each subpackage's {@code package-info} says
 * what it decides:
 *
 * <ul>
 *   <li>{@code coordinator}: the singleton that decides where shards live and when they move;
 *   <li>{@code region}: one node's region of a type, which routes every message;
 *   <li>{@code shard}: one shard's entities, their lives and their remembered set;
 *   <li>{@code delivery}: the links that carry messages to other nodes' regions, in order;
 *   <li>{@code gate}: whether this node's entities may process messages now;
 *   <li>{@code health}: the readiness and liveness checks;
 *   <li>{@code telemetry}: what the machines report, handed to the telemetry bindings;
 *   <li>{@code membership}: the cluster's membership as the machines see it;
 *   <li>{@code machine}: what the control-plane machines and their actor shells share;
 *   <li>{@code wire}: what crosses nodes, and its versioned binary format;
 *   <li>{@code store}: the stores sharding-core ships and how a store mode finds its provider;
 *   <li>{@code util}: id rules, the null rule and two collections that several packages use.
 * </ul>
 *
 * <p>This package holds what ties them together for one entity type on a node: {@link StartedType}
 * (its stores, coordinator singleton, region and gate, started by {@code ClusterSharding}), the
 * checks and warnings at startup, and {@link InternalApi}, the mark of a type that is public only so
 * that another shardkit package can reach it.
 */
package dev.shardkit.sharding.internal;
