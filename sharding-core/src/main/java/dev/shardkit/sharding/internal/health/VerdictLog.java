package dev.shardkit.sharding.internal.health;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;

/**
 * Logs a health check's verdict when it changes, with its reason. Probes come every few seconds
 * and Pekko Management already logs each failed one without saying why; this says why, once per
 * change. Thread-safe.
 *
 * <p>Internal API: public only for the health checks in {@code dev.shardkit.sharding}.
 */
@InternalApi
public final class VerdictLog {
  private final Logger log;
  private final String check;
  private final boolean warnOnFailure;
  private final AtomicReference<HealthVerdict> last = new AtomicReference<>();

  /**
   * @param check the check's name, for the log
   * @param warnOnFailure a failure is logged as a warning (liveness: the node is about to be
   *     restarted), else as information (readiness: a node starting up is not ready for a while)
   */
  public VerdictLog(Logger log, String check, boolean warnOnFailure) {
    this.log = log;
    this.check = check;
    this.warnOnFailure = warnOnFailure;
  }

  /** Logs {@code verdict} if it differs from the last one, and returns it. */
  public HealthVerdict report(HealthVerdict verdict) {
    if (!verdict.equals(last.getAndSet(verdict))) {
      if (!verdict.ok() && warnOnFailure) {
        log.warn("{} fails: {}", check, verdict.reason());
      } else {
        log.info("{} {}: {}", check, verdict.ok() ? "passes" : "fails", verdict.reason());
      }
    }
    return verdict;
  }
}
