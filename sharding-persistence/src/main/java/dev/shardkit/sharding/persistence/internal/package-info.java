/**
 * The persistence store's internals; not API.
 *
 * <p>The functional core: {@link dev.shardkit.sharding.persistence.internal.EventFit} (whether an
 * event applies to a state, is already reflected in it, or conflicts),
 * {@link dev.shardkit.sharding.persistence.internal.StoredForm} (coordinator events and states to
 * and from their stored form, {@link dev.shardkit.sharding.persistence.internal.StoredEvent} and
 * {@link dev.shardkit.sharding.persistence.internal.StoredSnapshot}, whose schema version is
 * {@link dev.shardkit.sharding.persistence.internal.StoredRecordVersion}) and
 * {@link dev.shardkit.sharding.persistence.internal.PersistenceStoreSettings}.
 *
 * <p>The actor shell: {@link dev.shardkit.sharding.persistence.internal.PersistenceCoordinatorStateStore}
 * (the {@code CoordinatorStateStore}) asks a
 * {@link dev.shardkit.sharding.persistence.internal.CoordinatorStoreActor}, which runs the
 * event-sourced {@link dev.shardkit.sharding.persistence.internal.CoordinatorJournal} and starts a
 * new one after a journal failure; {@link dev.shardkit.sharding.persistence.internal.SchemaCreation}
 * creates the JDBC tables. For the {@code RemoveShardingData} tool:
 * {@link dev.shardkit.sharding.persistence.internal.ShardingDataKind} (which persistence ids hold
 * which data) and {@link dev.shardkit.sharding.persistence.internal.PersistenceIdRemover}.
 */
package dev.shardkit.sharding.persistence.internal;
