package dev.shardkit.sharding.internal;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the warnings of {@link StartupChecks} (and of the store modules' checks) at WARN, each
 * text once per actor system however many entity types start and stores are created: a warning
 * about the node's configuration said once is heard, said per type it is noise. Thread-safe.
 *
 * <p>Internal API: public for the store modules; not for applications, and it may change in any
 * release.
 */
@InternalApi
public final class StartupWarnings implements Extension {
  private static final Logger LOG = LoggerFactory.getLogger(StartupWarnings.class);

  private static final ExtensionId<StartupWarnings> ID = new ExtensionId<>() {
    @Override
    public StartupWarnings createExtension(ActorSystem<?> system) {
      return new StartupWarnings(system);
    }
  };

  private final ActorSystem<?> system;
  private final Set<String> logged = ConcurrentHashMap.newKeySet();

  private StartupWarnings(ActorSystem<?> system) {
    this.system = system;
  }

  /** The one instance of {@code system}. */
  public static StartupWarnings get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  /** Logs each of {@code warnings} that this system has not logged yet. */
  public void warnOnce(List<String> warnings) {
    for (String w : warnings) {
      if (logged.add(w)) {
        LOG.warn("{} [node {}]", w, system.address());
      }
    }
  }
}
