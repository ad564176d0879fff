package dev.shardkit.sharding.persistence.internal;

import org.jspecify.annotations.Nullable;

/**
 * The journal event a coordinator's load writes before the coordinator serves: it changes nothing
 * in the coordinator state, but its sequence number becomes that coordinator's term. The journal
 * holds each sequence number once, so two loads never share a term, and every later load's term is
 * greater. A journal that has replayed a take-over refuses the writes of coordinators with a
 * smaller term ({@link CoordinatorJournal}). Stored as {@link StoredEvent.Kind#TAKEN_OVER}.
 *
 * @param node the address of the node whose coordinator took over, so that
 *     {@code RemoveShardingData} can name the node of a coordinator still writing; null in a
 *     take-over written before the node was stored
 */
record CoordinatorTakeOver(@Nullable String node) {}
