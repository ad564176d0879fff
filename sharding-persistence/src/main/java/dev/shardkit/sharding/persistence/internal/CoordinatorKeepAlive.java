package dev.shardkit.sharding.persistence.internal;

/**
 * The journal event a loaded coordinator's store writes when the coordinator has written nothing
 * for {@code keep-alive-interval}: it changes nothing in the coordinator state, and exists so that
 * the journal shows a running coordinator as running even while it has nothing to decide
 * ({@code RemoveShardingData} refuses to delete data written within its quiet period). It is
 * written at its coordinator's term like every other write, so a deposed coordinator's keep-alive
 * is refused ({@link CoordinatorJournal}). Stored as {@link StoredEvent.Kind#KEPT_ALIVE}.
 *
 * @param node the address of the node whose coordinator is alive
 */
record CoordinatorKeepAlive(String node) {}
