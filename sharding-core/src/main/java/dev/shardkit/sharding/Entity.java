package dev.shardkit.sharding;

import java.util.Optional;
import java.util.function.Function;
import org.apache.pekko.actor.typed.Behavior;

import static dev.shardkit.sharding.internal.Arguments.requireNonNull;

/**
 * The definition of an entity type for {@link ClusterSharding#start}: its key, how to create an
 * entity, and optional overrides. Immutable; each {@code with…} returns a copy. Every method
 * refuses a null argument with an {@link IllegalArgumentException} naming it.
 *
 * @param <M> the entity's message type
 * @param <E> the envelope type sent to the region ({@link ShardingEnvelope} by default)
 */
public final class Entity<M, E> {
  private final EntityTypeKey<M> typeKey;
  private final Function<EntityContext<M>, Behavior<M>> createBehavior;
  private final Optional<String> role;
  private final Optional<MessageExtractor<E, M>> messageExtractor;
  private final Optional<ShardAllocationStrategy> allocationStrategy;
  private final Optional<M> stopMessage;
  private final Optional<ShardingSettings> settings;

  private Entity(EntityTypeKey<M> typeKey, Function<EntityContext<M>, Behavior<M>> createBehavior,
      Optional<String> role, Optional<MessageExtractor<E, M>> messageExtractor,
      Optional<ShardAllocationStrategy> allocationStrategy, Optional<M> stopMessage, Optional<ShardingSettings> settings) {
    this.typeKey = typeKey;
    this.createBehavior = createBehavior;
    this.role = role;
    this.messageExtractor = messageExtractor;
    this.allocationStrategy = allocationStrategy;
    this.stopMessage = stopMessage;
    this.settings = settings;
  }

  /**
   * An entity type whose entities are created by {@code createBehavior}, addressed with
   * {@link ShardingEnvelope} and the {@link StableHashMessageExtractor}.
   *
   * @throws IllegalArgumentException if an argument is null
   */
  public static <M> Entity<M, ShardingEnvelope<M>> of(EntityTypeKey<M> typeKey,
      Function<EntityContext<M>, Behavior<M>> createBehavior) {
    requireNonNull(typeKey, "Entity.of", "typeKey");
    requireNonNull(createBehavior, "Entity.of(" + typeKey.name() + ")", "createBehavior");
    return new Entity<>(typeKey, createBehavior, Optional.empty(), Optional.empty(), Optional.empty(),
        Optional.empty(), Optional.empty());
  }

  /** Host entities only on nodes with this cluster role; other nodes get a proxy. */
  public Entity<M, E> withRole(String role) {
    requireNonNull(role, "Entity.withRole", "role");
    return new Entity<>(typeKey, createBehavior, Optional.of(role), messageExtractor, allocationStrategy,
        stopMessage, settings);
  }

  /** Use another envelope type, or another mapping of entity ids to shards. */
  public <E2> Entity<M, E2> withMessageExtractor(MessageExtractor<E2, M> extractor) {
    requireNonNull(extractor, "Entity.withMessageExtractor", "extractor");
    return new Entity<>(typeKey, createBehavior, role, Optional.of(extractor), allocationStrategy, stopMessage,
        settings);
  }

  /** Use another strategy to place and move shards. */
  public Entity<M, E> withAllocationStrategy(ShardAllocationStrategy strategy) {
    requireNonNull(strategy, "Entity.withAllocationStrategy", "strategy");
    return new Entity<>(typeKey, createBehavior, role, messageExtractor, Optional.of(strategy), stopMessage,
        settings);
  }

  /**
   * The message that stops an entity on hand-off and passivation. Without one, the entity is
   * stopped after it has processed what is already in its mailbox.
   */
  public Entity<M, E> withStopMessage(M stopMessage) {
    requireNonNull(stopMessage, "Entity.withStopMessage", "stopMessage");
    return new Entity<>(typeKey, createBehavior, role, messageExtractor, allocationStrategy, Optional.of(stopMessage),
        settings);
  }

  /** Use these settings instead of those from {@code shardkit.sharding}. */
  public Entity<M, E> withSettings(ShardingSettings settings) {
    requireNonNull(settings, "Entity.withSettings", "settings");
    return new Entity<>(typeKey, createBehavior, role, messageExtractor, allocationStrategy, stopMessage,
        Optional.of(settings));
  }

  public EntityTypeKey<M> typeKey() {
    return typeKey;
  }

  public Function<EntityContext<M>, Behavior<M>> createBehavior() {
    return createBehavior;
  }

  public Optional<String> role() {
    return role;
  }

  public Optional<MessageExtractor<E, M>> messageExtractor() {
    return messageExtractor;
  }

  public Optional<ShardAllocationStrategy> allocationStrategy() {
    return allocationStrategy;
  }

  public Optional<M> stopMessage() {
    return stopMessage;
  }

  public Optional<ShardingSettings> settings() {
    return settings;
  }
}
