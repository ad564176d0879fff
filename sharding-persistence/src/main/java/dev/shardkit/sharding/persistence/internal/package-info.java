/**
 * The persistence stores' internals; not API.
 *
 * <p>The functional core: {@link dev.shardkit.sharding.persistence.internal.EventFit} (whether a
 * coordinator event applies to a state, is already reflected in it, or conflicts),
 * {@link dev.shardkit.sharding.persistence.internal.StoredForm} (coordinator events and states to
 * and from their stored form, {@link dev.shardkit.sharding.persistence.internal.StoredEvent} and
 * {@link dev.shardkit.sharding.persistence.internal.StoredSnapshot}),
 * {@link dev.shardkit.sharding.persistence.internal.RememberedEntities} (a shard's remembered ids,
 * changed by {@link dev.shardkit.sharding.persistence.internal.StoredEntitiesChange} and snapshot
 * as {@link dev.shardkit.sharding.persistence.internal.StoredEntitiesSnapshot}); the schema version
 * of all stored records is {@link dev.shardkit.sharding.persistence.internal.StoredRecordVersion};
 * {@link dev.shardkit.sharding.persistence.internal.KeepAlivePace} (when a loaded coordinator's
 * store writes a keep-alive); and {@link dev.shardkit.sharding.persistence.internal.PersistenceStoreSettings}.
 *
 * <p>The actor shell: {@link dev.shardkit.sharding.persistence.internal.PersistenceCoordinatorStateStore}
 * (the {@code CoordinatorStateStore}) and
 * {@link dev.shardkit.sharding.persistence.internal.PersistenceRememberEntitiesStore} (the
 * {@code RememberEntitiesStore} of one shard) each ask, through a
 * {@link dev.shardkit.sharding.persistence.internal.JournalStore}, a
 * {@link dev.shardkit.sharding.persistence.internal.JournalStoreActor}, which runs their
 * event-sourced journal ({@link dev.shardkit.sharding.persistence.internal.CoordinatorJournal},
 * {@link dev.shardkit.sharding.persistence.internal.EntitiesJournal}; failures as
 * {@link dev.shardkit.sharding.persistence.internal.JournalFailures} says) and starts a new one
 * after a journal failure, and writes a coordinator's keep-alives; {@link dev.shardkit.sharding.persistence.internal.SchemaCreation}
 * creates the JDBC tables. For the {@code RemoveShardingData} tool:
 * {@link dev.shardkit.sharding.persistence.internal.ShardingDataKind} (which persistence ids hold
 * which data), {@link dev.shardkit.sharding.persistence.internal.PersistenceIdRemover}, and
 * {@link dev.shardkit.sharding.persistence.internal.CoordinatorWriteQuery}, which reads a
 * coordinator's {@link dev.shardkit.sharding.persistence.internal.LastCoordinatorWrite} (when, and
 * by which node) so that the tool refuses a cluster that may be running.
 */
package dev.shardkit.sharding.persistence.internal;
