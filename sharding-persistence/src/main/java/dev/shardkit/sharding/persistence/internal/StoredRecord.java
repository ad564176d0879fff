package dev.shardkit.sharding.persistence.internal;

/**
 * What the stores write to the journal and the snapshot store: {@link StoredEvent},
 * {@link StoredEventsBatch} and {@link StoredSnapshot} (coordinator state), {@link StoredEntitiesChange} and
 * {@link StoredEntitiesSnapshot} (remembered entities). Bound to Pekko's
 * {@code jackson-json} serializer in this module's {@code reference.conf};
 * {@link StoredRecordVersion} puts the schema version in the manifest.
 *
 * <p>Every record ignores properties it does not know ({@code @JsonIgnoreProperties}, whatever
 * the application's Jackson settings), so a later shardkit may add fields (a term, a zone, a
 * load) under the same schema version and journals it wrote still replay here during a rolling
 * upgrade. A reader of an older record without such a field must take a default. Anything else
 * (a renamed or removed field, a new event kind) raises the schema version.
 */
public interface StoredRecord {}
