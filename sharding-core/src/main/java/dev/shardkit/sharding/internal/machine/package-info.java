/**
 * What the control plane's machines and their actor shells share. A {@link Machine} is given one
 * input at a time with the time, and answers with effects as values, collected in an
 * {@link EffectBuffer}; its timers are values in a {@link TimerTable}; {@link Backoff} says how
 * long to wait after failures in a row. The shells share what they do when a handler throws
 * ({@link HandlerFailures}) and how they count and report messages they could not deliver
 * ({@link DropReporter}).
 */
package dev.shardkit.sharding.internal.machine;
