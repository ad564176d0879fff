package dev.shardkit.sharding.persistence.internal;

import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;

/**
 * What the coordinator's and the remembered entities' journals share: the configured journal and
 * snapshot plugins, their own snapshot retention, and stopping at the first journal failure
 * ({@link JournalFailures}), after which their {@link JournalStoreActor} starts a fresh one.
 */
abstract class StoreJournal<C, E, S> extends EventSourcedBehavior<C, E, S> {
  private final PersistenceStoreSettings settings;
  private final RetentionCriteria retention;

  StoreJournal(String persistenceId, PersistenceStoreSettings settings, PersistenceStoreSettings.Retention retention) {
    super(PersistenceId.ofUniqueId(persistenceId), JournalFailures.stopAtFirstFailure());
    this.settings = settings;
    this.retention = retention.criteria();
  }

  @Override
  public String journalPluginId() {
    return settings.journalPluginId();
  }

  @Override
  public String snapshotPluginId() {
    return settings.snapshotPluginId();
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    return retention;
  }
}
