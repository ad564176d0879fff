package dev.shardkit.sharding.internal.machine;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.RandomAccess;

/**
 * Where a {@link Machine} collects the effects of one input: cleared at the start of each
 * {@code handle}, appended to while it decides, and handed out as a read-only view. One buffer per
 * machine, reused, so that handling an input allocates no list.
 *
 * @param <E> the machine's effects
 */
@InternalApi
public final class EffectBuffer<E> {
  private final ArrayList<E> effects = new ArrayList<>();
  private final List<E> view = new View();

  /** Forgets the previous input's effects. */
  public void clear() {
    effects.clear();
  }

  /** Appends an effect, to be carried out after those appended before it. */
  public void add(E effect) {
    if (effect == null) {
      throw new IllegalArgumentException("EffectBuffer.add: effect must not be null");
    }
    effects.add(effect);
  }

  /** The effects appended since the last {@link #clear()}, in order; read-only, and live. */
  public List<E> view() {
    return view;
  }

  private final class View extends AbstractList<E> implements RandomAccess {
    @Override
    public E get(int index) {
      return effects.get(index);
    }

    @Override
    public int size() {
      return effects.size();
    }
  }
}
