package dev.shardkit.sharding.spi;

/**
 * What {@link CoordinatorStateStore#load()} hands the coordinator that loads: the stored state, and
 * the term the store gave this coordinator.
 *
 * <p>The <b>term</b> fences coordinators: it is strictly greater than the term of every earlier
 * coordinator of the type that loaded from the same store (the memory store, which keeps nothing,
 * promises only that it grows as the coordinator moves within one cluster's life). The coordinator
 * puts it on everything it tells regions to act on, and a region acts only on its current
 * coordinator's term, so a deposed coordinator that still runs somewhere cannot move a shard.
 *
 * @param term this coordinator's term, {@code >= 1}
 * @param state the stored state, {@link CoordinatorState#empty()} if nothing was stored
 */
public record LoadedCoordinatorState(long term, CoordinatorState state) {

  /** @throws IllegalArgumentException if the term is below 1 or the state is null */
  public LoadedCoordinatorState {
    if (term < 1) {
      throw new IllegalArgumentException("A coordinator's term must be at least 1, got " + term);
    }
    if (state == null) {
      throw new IllegalArgumentException("A loaded coordinator state needs a state, got null");
    }
  }
}
