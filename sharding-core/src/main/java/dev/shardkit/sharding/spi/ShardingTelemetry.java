package dev.shardkit.sharding.spi;

/**
 * Receives what sharding's control plane does on one node, as {@link ShardingEvent}s: a binding
 * that forwards them to a metrics library, a tracer or a test. Bindings are named in
 * {@code shardkit.sharding.telemetry.bindings} (the JDK Flight Recorder binding is on by default,
 * {@code shardkit.sharding.telemetry.jfr}); one instance of each is created per actor system, the
 * first time sharding starts there, with a public constructor taking the
 * {@code org.apache.pekko.actor.typed.ActorSystem} or, if it has none, a public no-argument one.
 *
 * <p>Events come from the control plane only (placements, hand-offs, rebalance rounds, store
 * writes, gate and link changes, drops), never once per delivered message: a local
 * {@code EntityRef.tell} does not call a binding. {@link #onEvent} is called from the actors that
 * decided what the event reports, on their dispatcher threads, so it is called concurrently for
 * different entity types and nodes' components; a binding must be thread-safe. It must return
 * quickly and not block (no I/O waits, no locks held for long): it runs inside the coordinator,
 * regions and shards. If it throws, the exception is logged once per binding (later ones are not
 * logged), the event is lost for that binding only, and sharding goes on as if nothing happened.
 */
@FunctionalInterface
public interface ShardingTelemetry {

  /** One thing sharding did on this node. Must not block; may be called from several threads at once. */
  void onEvent(ShardingEvent event);
}
