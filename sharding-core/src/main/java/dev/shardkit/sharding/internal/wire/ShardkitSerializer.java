package dev.shardkit.sharding.internal.wire;

import dev.shardkit.sharding.internal.InternalApi;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * What every shardkit serializer needs from Pekko: the identifier it is known by (the one
 * configured under {@code pekko.actor.serialization-identifiers}, else its default) and a resolver
 * for the actor refs in its messages.
 *
 * <p>Internal API: public for sharding-ddata's serializer; not for applications, and it may change
 * in any release.
 */
@InternalApi
public abstract class ShardkitSerializer extends SerializerWithStringManifest {
  /** The system Pekko created this serializer for. */
  protected final ExtendedActorSystem system;
  private final int identifier;
  // Looked up on first use, not in the constructor: Pekko creates serializers while its
  // Serialization extension is being created, and ActorRefResolver needs the typed view of the
  // system, which is not ready then (asking could recurse into the unfinished extension).
  private volatile ActorRefResolver resolver;

  /**
   * @param defaultIdentifier the identifier unless the configuration names another; Pekko's own
   *     base serializer reads the same setting, but is a Scala trait a Java class cannot mix in
   */
  protected ShardkitSerializer(ExtendedActorSystem system, int defaultIdentifier) {
    this.system = system;
    String key = "pekko.actor.serialization-identifiers.\"" + getClass().getName() + "\"";
    var config = system.settings().config();
    this.identifier = config.hasPath(key) ? config.getInt(key) : defaultIdentifier;
  }

  @Override
  public final int identifier() {
    return identifier;
  }

  /** Turns actor refs into strings and back, for the system this serializer belongs to. */
  protected final ActorRefResolver resolver() {
    ActorRefResolver r = resolver;
    if (r == null) {
      r = ActorRefResolver.get(Adapter.toTyped(system));
      resolver = r;
    }
    return r;
  }
}
