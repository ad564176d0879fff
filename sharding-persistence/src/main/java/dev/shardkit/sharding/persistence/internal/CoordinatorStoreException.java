package dev.shardkit.sharding.persistence.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * A load or store of the persistence store failed. The message says what failed, for which entity
 * type, and the messages of the whole cause chain (the database's own error is usually at the
 * bottom); the coordinator logs it and retries.
 */
public final class CoordinatorStoreException extends RuntimeException {

  public CoordinatorStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  static CoordinatorStoreException of(String what, String typeName, Throwable cause) {
    return new CoordinatorStoreException("Entity type [" + typeName + "]: " + what + ": " + describe(cause), cause);
  }

  /** The messages of {@code t} and its causes, each once, outermost first. */
  static String describe(Throwable t) {
    List<String> parts = new ArrayList<>();
    String joined = "";
    for (Throwable c = t; c != null && parts.size() < 8; c = c.getCause() == c ? null : c.getCause()) {
      String text = c.getMessage() != null ? c.getMessage() : c.getClass().getName();
      // Wrappers often repeat their cause's message; keep each text once.
      if (!joined.contains(text)) {
        parts.add(text);
        joined = String.join(" | ", parts);
      }
    }
    return joined;
  }
}
