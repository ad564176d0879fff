/**
 * The coordinator state store that sharding-core ships ({@link InMemoryCoordinatorStateStore}),
 * how a store mode finds its provider ({@link StateStores}), and what the store modules build on:
 * {@link PersistentList} and {@link SameThreadStages}.
 */
package dev.shardkit.sharding.internal.store;
