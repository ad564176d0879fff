package dev.shardkit.sharding.testkit;

import dev.shardkit.sharding.internal.util.Arguments;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.pekko.coordination.lease.LeaseException;
import org.jspecify.annotations.Nullable;

/**
 * What a test does to one {@link TestLease}, shared by every owner that asks for it: by default it
 * is granted to whoever asks while nobody holds it. A test can refuse every request, hand the
 * lease to an owner outside the cluster (as if another side of a partition held it), and take it
 * away from its holder, who is told that it lost it. Thread-safe.
 */
public final class TestLeaseControl {

  private final String name;
  private @Nullable String holder;
  private @Nullable Consumer<Optional<Throwable>> lostCallback;
  private boolean granting = true;
  private long refused;

  TestLeaseControl(String name) {
    this.name = name;
  }

  /** The lease's name, as its users' lease settings give it. */
  public String name() {
    return name;
  }

  /** The owner holding the lease, if any. */
  public synchronized Optional<String> holder() {
    return Optional.ofNullable(holder);
  }

  /** How many requests for the lease were refused so far. */
  public synchronized long refusals() {
    return refused;
  }

  /** From now on every request is refused; the holder keeps the lease. */
  public synchronized void refuseAll() {
    granting = false;
  }

  /** From now on the lease is granted to whoever asks while nobody holds it. */
  public synchronized void grantAll() {
    granting = true;
  }

  /**
   * {@code owner} (not one of the test's nodes) holds the lease from now on, until
   * {@link #free()}; whoever held it is told that it lost it.
   */
  public synchronized void holdElsewhere(String owner) {
    Arguments.requireNonNull(owner, "TestLeaseControl.holdElsewhere", "owner");
    revoke();
    holder = owner;
  }

  /** Nobody holds the lease any more; an owner outside the test that held it lets it go. */
  public synchronized void free() {
    holder = null;
    lostCallback = null;
  }

  /** The holder loses the lease, and is told so. Nothing happens if nobody holds it. */
  public synchronized void revoke() {
    Consumer<Optional<Throwable>> lost = lostCallback;
    String lostBy = holder;
    free();
    if (lost != null) {
      lost.accept(Optional.of(new LeaseException("test lease [" + name + "] taken away from " + lostBy)));
    }
  }

  synchronized boolean acquire(String owner, Consumer<Optional<Throwable>> onLost) {
    if (owner.equals(holder)) {
      lostCallback = onLost;
      return true;
    }
    if (!granting || holder != null) {
      refused++;
      return false;
    }
    holder = owner;
    lostCallback = onLost;
    return true;
  }

  synchronized boolean release(String owner) {
    if (!owner.equals(holder)) {
      return false;
    }
    free();
    return true;
  }

  synchronized boolean holds(String owner) {
    return owner.equals(holder);
  }
}
