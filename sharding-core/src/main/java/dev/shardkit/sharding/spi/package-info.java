/**
 * Service-provider interfaces for the coordinator's durable state: the state value and its
 * events ({@link dev.shardkit.sharding.spi.CoordinatorState},
 * {@link dev.shardkit.sharding.spi.CoordinatorEvent}) and the store that keeps them
 * ({@link dev.shardkit.sharding.spi.CoordinatorStateStore}), chosen by
 * {@code shardkit.sharding.state-store-mode}; what a load gives a coordinator, its state and its
 * term ({@link dev.shardkit.sharding.spi.LoadedCoordinatorState}), and how a store refuses a
 * deposed coordinator's write
 * ({@link dev.shardkit.sharding.spi.CoordinatorStateSupersededException}). Store modules implement
 * these; applications only pick a mode.
 *
 * <p>Also what sharding's control plane reports, as {@link dev.shardkit.sharding.spi.ShardingEvent}s,
 * to the {@link dev.shardkit.sharding.spi.ShardingTelemetry} bindings named in
 * {@code shardkit.sharding.telemetry} (the JDK Flight Recorder one is built in and on by default).
 */
@NullMarked
package dev.shardkit.sharding.spi;

import org.jspecify.annotations.NullMarked;
