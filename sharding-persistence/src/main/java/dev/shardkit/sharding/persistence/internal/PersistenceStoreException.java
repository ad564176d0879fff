package dev.shardkit.sharding.persistence.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * A load or write of a persistence store failed. The message says what failed, for which entity
 * type (and shard, for remembered entities), and the messages of the whole cause chain (the
 * database's own error is usually at the bottom); the coordinator or shard logs it and retries.
 */
public final class PersistenceStoreException extends RuntimeException {

  public PersistenceStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  /** @param subject whose data, e.g. {@code "Entity type [Cart]"} */
  static PersistenceStoreException of(String what, String subject, Throwable cause) {
    return new PersistenceStoreException(subject + ": " + what + ": " + describe(cause), cause);
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
