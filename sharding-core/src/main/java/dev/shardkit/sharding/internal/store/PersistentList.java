package dev.shardkit.sharding.internal.store;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.AbstractList;
import java.util.RandomAccess;
import scala.collection.SeqOps;
import scala.collection.immutable.Vector$;
import scala.collection.immutable.Vector;

/**
 * An immutable list whose {@link #appended} shares structure with the list it came from instead
 * of copying it: a region's shards in allocation order, which grows by one shard per allocation.
 * Backed by Scala's persistent {@link Vector}, which Pekko already brings.
 *
 * <p>Guarantees: never changes once made (every mutator of {@link java.util.List} throws
 * {@link UnsupportedOperationException}); {@link #appended} and {@link #get} take effectively
 * constant time; {@link #without} takes time linear in the size (a deallocation removes from the
 * middle); equal to any {@link java.util.List} with the same elements in the same order.
 *
 * <p>Internal API: public only for {@code spi.CoordinatorState}; not for applications.
 *
 * @param <E> the element type
 */
@InternalApi
public final class PersistentList<E> extends AbstractList<E> implements RandomAccess {
  private static final PersistentList<Object> EMPTY = new PersistentList<>(Vector$.MODULE$.empty());

  private final Vector<E> elements;

  private PersistentList(Vector<E> elements) {
    this.elements = elements;
  }

  /** The empty list. */
  @SuppressWarnings("unchecked")
  public static <E> PersistentList<E> empty() {
    return (PersistentList<E>) EMPTY;
  }

  /** This list with {@code element} added at the end. */
  @SuppressWarnings("unchecked")
  public PersistentList<E> appended(E element) {
    // Through SeqOps: on Vector itself javac finds two equally specific appended methods.
    SeqOps<E, ?, ?> ops = elements;
    return new PersistentList<>((Vector<E>) ops.appended(element));
  }

  /** This list without the first occurrence of {@code element}; this list itself if it has none. */
  public PersistentList<E> without(E element) {
    int at = indexOf(element);
    if (at < 0) {
      return this;
    }
    return new PersistentList<>(elements.take(at).appendedAll(elements.drop(at + 1)));
  }

  @Override
  public E get(int index) {
    if (index < 0 || index >= elements.length()) {
      throw new IndexOutOfBoundsException("Index " + index + " out of bounds for length " + elements.length());
    }
    return elements.apply(index);
  }

  @Override
  public int size() {
    return elements.length();
  }
}
