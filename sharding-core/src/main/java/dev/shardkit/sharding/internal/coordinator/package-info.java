/**
 * The coordinator: one singleton per entity type that decides where shards live and when they
 * move. {@link CoordinatorMachine} decides everything, one input at a time: registrations of
 * regions ({@link Registration}), homes of new shards and rebalance rounds ({@link Placement},
 * {@link RebalanceRounds}, {@link Settling}), hand-offs and whom they are told to
 * ({@link HandOffTracker}, {@link HandOffAudience}), the writes of its state
 * ({@link CoordinatorWrites}, {@link CoordinatorStore}) and the answers that wait for them
 * ({@link PendingHomeAnswers}). {@link ShardCoordinator} is the actor that carries out its effects
 * through {@link CoordinatorPorts}; it decides nothing of its own.
 */
package dev.shardkit.sharding.internal.coordinator;
