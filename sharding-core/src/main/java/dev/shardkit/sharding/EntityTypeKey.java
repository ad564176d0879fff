package dev.shardkit.sharding;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

import static dev.shardkit.sharding.internal.util.Arguments.requireNonNull;

/**
 * The name and message type of one entity type. Two keys are equal when their names and message
 * classes are equal; the name identifies the type across the cluster, so every node must use the
 * same name for the same entities.
 *
 * @param <M> the entity's message type
 */
public final class EntityTypeKey<M> {
  private final Class<M> messageClass;
  private final String name;

  private EntityTypeKey(Class<M> messageClass, String name) {
    this.messageClass = messageClass;
    this.name = name;
  }

  /**
   * Creates a key.
   *
   * @param messageClass the class (or interface) of every message the entity accepts
   * @param name the type's name, unique in the cluster; letters, digits and {@code -_.} only,
   *     since it becomes part of actor names
   * @throws IllegalArgumentException if the class is null or the name is null, empty or holds
   *     other characters
   */
  public static <M> EntityTypeKey<M> create(Class<M> messageClass, String name) {
    requireNonNull(messageClass, "EntityTypeKey.create(" + name + ")", "messageClass");
    requireNonNull(name, "EntityTypeKey.create(" + messageClass.getName() + ")", "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("EntityTypeKey needs a non-empty type name (message class: " + messageClass.getName() + ")");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
      if (!ok) {
        throw new IllegalArgumentException("Entity type name [" + name + "] has the character '" + c
            + "' at index " + i + "; use letters, digits, '-', '_' and '.' only");
      }
    }
    return new EntityTypeKey<>(messageClass, name);
  }

  /** The type's cluster-wide name. */
  public String name() {
    return name;
  }

  /** The class of the messages the entity accepts. */
  public Class<M> messageClass() {
    return messageClass;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof EntityTypeKey<?> other && name.equals(other.name) && messageClass.equals(other.messageClass);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, messageClass);
  }

  @Override
  public String toString() {
    return "EntityTypeKey[" + name + ", " + messageClass.getName() + "]";
  }
}
