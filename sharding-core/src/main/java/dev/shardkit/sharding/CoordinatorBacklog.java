package dev.shardkit.sharding;

/**
 * A diagnostic snapshot of what an entity type's coordinator holds in memory while it waits for its
 * state store: what an operator (or a test) watches during a store outage to see that the
 * coordinator's memory stays bounded. Every figure but {@code refusedRequests} is bounded by the
 * number of (shard, region) pairs asked about, whatever the outage's length.
 *
 * @param pendingAnswers answers to shard-home requests that wait until the store holds the home,
 *     one per (shard, region) however often the region asks; at most
 *     {@code coordinator-pending-answers-limit}
 * @param waitingEffects replies and announcements waiting for a store write to complete
 * @param deferredRequests requests for homeless shards that wait while a new coordinator settles
 * @param refusedRequests requests refused since the coordinator started because a bounded queue was
 *     full (the stash while it loads, the settling queue, the pending answers); their regions ask
 *     again
 */
public record CoordinatorBacklog(int pendingAnswers, int waitingEffects, int deferredRequests, long refusedRequests) {}
