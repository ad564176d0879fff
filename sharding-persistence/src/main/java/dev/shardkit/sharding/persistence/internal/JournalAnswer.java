package dev.shardkit.sharding.persistence.internal;

import org.apache.pekko.actor.NoSerializationVerificationNeeded;

/**
 * A journal's answer to the request with {@code id} from its {@link JournalStoreActor}: the value
 * asked for (a state, or {@code Done} for a write) when {@code failure} is null.
 */
public record JournalAnswer(long id, Object value, Throwable failure) implements NoSerializationVerificationNeeded {

  static JournalAnswer of(long id, Object value) {
    return new JournalAnswer(id, value, null);
  }

  static JournalAnswer failed(long id, Throwable failure) {
    return new JournalAnswer(id, null, failure);
  }
}
