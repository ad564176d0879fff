/**
 * Telemetry: what the machines report, handed to the bindings of {@code shardkit.sharding.telemetry}
 * as {@link dev.shardkit.sharding.spi.ShardingEvent}s. {@link TelemetryEvents} maps each shell's
 * notices to events; {@link TelemetryBindings} holds one actor system's bindings and keeps a
 * binding that throws from breaking sharding; {@link JfrTelemetry} is the JFR binding, on by
 * default, whose events ({@link JfrTelemetryEvents}) cost nothing but a check while no recording
 * runs.
 */
package dev.shardkit.sharding.internal.telemetry;
