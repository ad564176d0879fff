package dev.shardkit.sharding.internal.machine;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.List;

/**
 * A part of the control plane as a deterministic state machine: it is given one input at a time,
 * with the time, and answers with what is to be done, as values. It reads no clock, no actor
 * context and no randomness it was not given, and does nothing itself: an actor (or the
 * whole-cluster simulation of shardkit's tests) turns Pekko's messages and signals into inputs and
 * carries the effects out, in order, with no decision of its own. So every decision can be driven
 * and checked input by input, and replayed.
 *
 * <p>Not thread-safe: one owner calls it, as an actor handles one message at a time.
 *
 * @param <I> the inputs it handles
 * @param <E> the effects it answers with
 */
@InternalApi
public interface Machine<I, E> {

  /**
   * Handles one input.
   *
   * @param now the time, in nanoseconds of a monotonic clock chosen by the caller (only differences
   *     between two values mean anything)
   * @return the effects, in the order they are to be carried out; a view that stays valid only
   *     until the next call (machines reuse one buffer, see {@link EffectBuffer})
   */
  List<E> handle(I input, long now);
}
