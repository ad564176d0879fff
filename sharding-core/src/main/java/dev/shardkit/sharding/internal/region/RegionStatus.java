package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.StartedType;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * What the node's health checks know of one region: whether a coordinator has acknowledged its
 * registration (which one, at which term), and whether it was asked to stop or has stopped. The
 * region publishes its registration through its {@link RegionRegistration}, and
 * {@link StartedType} the stop; a health check reads a {@link Snapshot} on whatever thread it runs.
 * The checks read this instead of asking the region, so that a busy region never makes a probe
 * time out, and the region's own code only reports what its registration unit already decided.
 *
 * <p>Thread-safe: one immutable snapshot, replaced atomically.
 *
 * <p>Internal API: public only for the health checks in {@code dev.shardkit.sharding}.
 */
@InternalApi
public final class RegionStatus {

  /** A coordinator acknowledged the region's registration at {@code term}, and the region acts on it. */
  public record Registered(String coordinator, long term) {}

  /**
   * One region at one moment.
   *
   * @param proxyOnly the region routes but hosts nothing; it registers as a proxy
   * @param registered empty while the region registers (first, or again after its coordinator
   *     went away)
   * @param stopAsked the region was asked to hand off its shards and stop (a graceful shutdown of
   *     the type, or of the node)
   * @param stopped the region has stopped, whatever stopped it
   */
  public record Snapshot(String typeName, boolean proxyOnly, Optional<Registered> registered, boolean stopAsked,
      boolean stopped) {}

  private final AtomicReference<Snapshot> current;

  public RegionStatus(String typeName, boolean proxyOnly) {
    this.current = new AtomicReference<>(new Snapshot(typeName, proxyOnly, Optional.empty(), false, false));
  }

  /** A new coordinator, or a new term of the current one, acknowledged the region. */
  void registered(String coordinator, long term) {
    update(s -> new Snapshot(s.typeName(), s.proxyOnly(), Optional.of(new Registered(coordinator, term)),
        s.stopAsked(), s.stopped()));
  }

  /** The region's coordinator went away; it registers with the next one. */
  void registering() {
    update(s -> new Snapshot(s.typeName(), s.proxyOnly(), Optional.empty(), s.stopAsked(), s.stopped()));
  }

  /** Someone on this node asked the region to shut down gracefully. */
  public void stopAsked() {
    update(s -> new Snapshot(s.typeName(), s.proxyOnly(), s.registered(), true, s.stopped()));
  }

  /** The region has stopped. */
  public void stopped() {
    update(s -> new Snapshot(s.typeName(), s.proxyOnly(), s.registered(), s.stopAsked(), true));
  }

  /** The region as it is now. */
  public Snapshot snapshot() {
    return current.get();
  }

  private void update(UnaryOperator<Snapshot> change) {
    current.updateAndGet(change);
  }
}
