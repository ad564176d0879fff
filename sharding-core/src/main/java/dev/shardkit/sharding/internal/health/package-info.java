/**
 * The node's readiness and liveness checks: {@link Readiness} and {@link Liveness} decide, with
 * their reasons ({@link HealthVerdict}), from a {@link NodeHealth} read of the node's regions and
 * gate, never by asking an actor; {@link VerdictLog} logs a verdict when it changes.
 */
package dev.shardkit.sharding.internal.health;
