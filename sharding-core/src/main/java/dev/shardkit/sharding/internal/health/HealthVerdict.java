package dev.shardkit.sharding.internal.health;

import dev.shardkit.sharding.internal.InternalApi;

/**
 * A health check's answer and why: the reason names what failed (the entity types, the gate, the
 * shutdown), or what the check found good.
 *
 * <p>Internal API: public only for the health checks in {@code dev.shardkit.sharding}.
 */
@InternalApi
public record HealthVerdict(boolean ok, String reason) {

  static HealthVerdict ok(String reason) {
    return new HealthVerdict(true, reason);
  }

  static HealthVerdict failed(String reason) {
    return new HealthVerdict(false, reason);
  }
}
