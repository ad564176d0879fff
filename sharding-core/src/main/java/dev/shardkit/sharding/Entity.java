package dev.shardkit.sharding;

import dev.shardkit.sharding.internal.shard.EntityProps;
import java.util.Optional;
import java.util.function.Function;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;

import static dev.shardkit.sharding.internal.util.Arguments.requireNonNull;

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
  private final Props entityProps;

  private Entity(EntityTypeKey<M> typeKey, Function<EntityContext<M>, Behavior<M>> createBehavior,
      Optional<String> role, Optional<MessageExtractor<E, M>> messageExtractor,
      Optional<ShardAllocationStrategy> allocationStrategy, Optional<M> stopMessage,
      Optional<ShardingSettings> settings, Props entityProps) {
    this.typeKey = typeKey;
    this.createBehavior = createBehavior;
    this.role = role;
    this.messageExtractor = messageExtractor;
    this.allocationStrategy = allocationStrategy;
    this.stopMessage = stopMessage;
    this.settings = settings;
    this.entityProps = entityProps;
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
        Optional.empty(), Optional.empty(), Props.empty());
  }

  /** Host entities only on nodes with this cluster role; other nodes get a proxy. */
  public Entity<M, E> withRole(String role) {
    requireNonNull(role, "Entity.withRole", "role");
    return new Entity<>(typeKey, createBehavior, Optional.of(role), messageExtractor, allocationStrategy,
        stopMessage, settings, entityProps);
  }

  /** Use another envelope type, or another mapping of entity ids to shards. */
  public <E2> Entity<M, E2> withMessageExtractor(MessageExtractor<E2, M> extractor) {
    requireNonNull(extractor, "Entity.withMessageExtractor", "extractor");
    return new Entity<>(typeKey, createBehavior, role, Optional.of(extractor), allocationStrategy, stopMessage,
        settings, entityProps);
  }

  /** Use another strategy to place and move shards. */
  public Entity<M, E> withAllocationStrategy(ShardAllocationStrategy strategy) {
    requireNonNull(strategy, "Entity.withAllocationStrategy", "strategy");
    return new Entity<>(typeKey, createBehavior, role, messageExtractor, Optional.of(strategy), stopMessage,
        settings, entityProps);
  }

  /**
   * The message that stops an entity on hand-off and passivation. Without one, the entity is
   * stopped after it has processed what is already in its mailbox.
   */
  public Entity<M, E> withStopMessage(M stopMessage) {
    requireNonNull(stopMessage, "Entity.withStopMessage", "stopMessage");
    return new Entity<>(typeKey, createBehavior, role, messageExtractor, allocationStrategy, Optional.of(stopMessage),
        settings, entityProps);
  }

  /** Use these settings instead of those from {@code shardkit.sharding}. */
  public Entity<M, E> withSettings(ShardingSettings settings) {
    requireNonNull(settings, "Entity.withSettings", "settings");
    return new Entity<>(typeKey, createBehavior, role, messageExtractor, allocationStrategy, stopMessage,
        Optional.of(settings), entityProps);
  }

  /**
   * Spawn the type's entities with these props, as Pekko's {@code Entity.withEntityProps}: choose
   * their dispatcher (for example {@code DispatcherSelector.fromConfig("my-dispatcher")} or
   * {@code DispatcherSelector.blocking()}) and their {@code ActorTags}. The props replace those
   * given before; by default entities run on the actor system's default dispatcher.
   *
   * <p>Not their mailbox. Every entity's mailbox is shardkit's gated mailbox
   * ({@code shardkit.sharding.entity-mailbox}): it holds the entity's messages, in order, while
   * its node may have been downed without knowing it (after a long pause, or while the others see
   * it unreachable), so that an entity never runs in two places. Another mailbox would drop that
   * guarantee, so props that select one ({@code MailboxSelector.bounded} or {@code fromConfig}, or
   * {@code Props.withMailboxFromConfig}, anywhere in the props) are refused. Entity mailboxes are
   * unbounded single-consumer queues, as Pekko's default mailbox is, so
   * {@code MailboxSelector.defaultMailbox()} is accepted.
   *
   * <p>The dispatcher must be configured on every node that hosts the type:
   * {@link ClusterSharding#start} refuses a dispatcher its node's configuration does not have.
   *
   * @throws IllegalArgumentException if {@code props} is null or selects a mailbox
   */
  public Entity<M, E> withEntityProps(Props props) {
    requireNonNull(props, "Entity.withEntityProps(" + typeKey.name() + ")", "props", "Props.empty() selects the defaults");
    EntityProps.requireNoMailbox(typeKey.name(), props);
    return new Entity<>(typeKey, createBehavior, role, messageExtractor, allocationStrategy, stopMessage, settings,
        props);
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

  /** The props of the type's entities ({@link #withEntityProps}); {@code Props.empty()} by default. */
  public Props entityProps() {
    return entityProps;
  }
}
