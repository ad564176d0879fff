package dev.shardkit.sharding;

/**
 * Tells a region which entity and which shard a message is for, and what the entity receives.
 *
 * <p>Implementations must be pure and agree on every node: the same entity id must give the same
 * shard id in every JVM, or an entity could be started in two places. Prefer
 * {@link StableHashMessageExtractor}; a JVM {@code hashCode} of anything but a {@code String} is
 * not stable across JVMs.
 *
 * <p>An extractor that throws, or returns a null or empty id, does not harm the region: the
 * message goes to dead letters with a warning naming the entity type, and every other entity keeps
 * being served. At {@link ClusterSharding#entityRefFor} the same failure is thrown to the caller.
 *
 * @param <E> the envelope type sent to the region
 * @param <M> the entity's message type
 */
public interface MessageExtractor<E, M> {

  /** The id of the entity the envelope is for; never null or empty. */
  String entityId(E envelope);

  /** The id of the shard the entity belongs to; the same for the same entity id on every JVM. */
  String shardId(String entityId);

  /** The message the entity receives. */
  M unwrapMessage(E envelope);

}
