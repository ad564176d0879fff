package dev.shardkit.sharding.persistence.internal;

/**
 * What the stores write to the journal and the snapshot store: {@link StoredEvent} and
 * {@link StoredSnapshot} (coordinator state), {@link StoredEntitiesChange} and
 * {@link StoredEntitiesSnapshot} (remembered entities). Bound to Pekko's
 * {@code jackson-json} serializer in this module's {@code reference.conf};
 * {@link StoredRecordVersion} puts the schema version in the manifest.
 */
public interface StoredRecord {}
