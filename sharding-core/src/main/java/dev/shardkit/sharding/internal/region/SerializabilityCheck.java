package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.serialization.DisabledJavaSerializer;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;

/**
 * Answers, once per class, whether a message class can cross to another node, so that a message
 * nobody can serialize is reported before the remote hop (naming the entity) instead of failing
 * deep inside remoting.
 */
@InternalApi
public final class SerializabilityCheck {
  private final Serialization serialization;
  private final ConcurrentHashMap<Class<?>, Optional<String>> problems = new ConcurrentHashMap<>();

  public SerializabilityCheck(ActorSystem system) {
    this.serialization = SerializationExtension.get(system);
  }

  /**
   * For tests that run the per-message path without an actor system: the answers for the classes
   * they send, known up front. Any other class throws {@link NullPointerException}.
   */
  SerializabilityCheck(java.util.Map<Class<?>, Optional<String>> known) {
    this.serialization = null;
    problems.putAll(known);
  }

  /** Why messages of this class cannot be sent to another node, or empty if they can. */
  public Optional<String> problem(Class<?> messageClass) {
    Optional<String> known = problems.get(messageClass);
    return known != null ? known : problems.computeIfAbsent(messageClass, this::find);
  }

  private Optional<String> find(Class<?> messageClass) {
    try {
      Serializer serializer = serialization.serializerFor(messageClass);
      if (serializer instanceof DisabledJavaSerializer) {
        return Optional.of("it would need Java serialization, which is disabled; bind a serializer to it in "
            + "pekko.actor.serialization-bindings (e.g. jackson-cbor)");
      }
      return Optional.empty();
    } catch (RuntimeException | java.io.NotSerializableException e) {
      return Optional.of("no serializer is bound to it (" + e.getMessage() + "); bind one in "
          + "pekko.actor.serialization-bindings");
    }
  }
}
