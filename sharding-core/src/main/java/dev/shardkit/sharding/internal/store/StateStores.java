package dev.shardkit.sharding.internal.store;

import com.typesafe.config.Config;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.spi.CoordinatorStateStoreProvider;
import dev.shardkit.sharding.spi.RememberEntitiesStoreProvider;
import java.util.TreeSet;

/**
 * Finds the provider of a store mode: store modules name their provider classes under
 * {@code shardkit.sharding.state-store-providers} (coordinator state) and
 * {@code shardkit.sharding.remember-entities-store-providers} (remember-entities); a mode whose
 * module is missing is reported with the artifact to add ({@code state-store-artifacts}).
 *
 * <p>Internal API: public for the store modules' tests, which look up their providers as the
 * runtime does; not for applications, and it may change in any release.
 */
@InternalApi
public final class StateStores {
  private StateStores() {}

  /**
   * The coordinator state store provider of {@code mode}.
   *
   * @param sharding the {@code shardkit.sharding} config
   * @throws IllegalStateException if the mode's module is not on the classpath
   * @throws IllegalArgumentException if the mode is unknown
   */
  public static CoordinatorStateStoreProvider provider(Config sharding, String mode) {
    return load(sharding, "state-store-providers", "state-store-mode", mode, CoordinatorStateStoreProvider.class);
  }

  /**
   * The remember-entities store provider of {@code mode}.
   *
   * @param sharding the {@code shardkit.sharding} config
   * @throws IllegalStateException if the mode's module is not on the classpath
   * @throws IllegalArgumentException if the mode is unknown
   */
  public static RememberEntitiesStoreProvider rememberEntitiesProvider(Config sharding, String mode) {
    return load(sharding, "remember-entities-store-providers", "remember-entities-store", mode,
        RememberEntitiesStoreProvider.class);
  }

  private static <T> T load(Config sharding, String providersKey, String settingKey, String mode, Class<T> type) {
    Config providers = sharding.getConfig(providersKey);
    Config artifacts = sharding.getConfig("state-store-artifacts");
    String artifact = artifacts.hasPath(mode) ? artifacts.getString(mode) : null;
    String setting = "shardkit.sharding." + settingKey + " = " + mode;
    if (!providers.hasPath(mode)) {
      if (artifact != null) {
        throw new IllegalStateException(setting + " needs the artifact " + artifact
            + " on the classpath; add it as a dependency");
      }
      TreeSet<String> known = new TreeSet<>(providers.root().keySet());
      known.addAll(artifacts.root().keySet());
      throw new IllegalArgumentException("Unknown shardkit.sharding." + settingKey + " [" + mode + "]; known modes: "
          + String.join(", ", known));
    }
    String className = providers.getString(mode);
    try {
      Class<?> c = Class.forName(className, true, StateStores.class.getClassLoader());
      return type.cast(c.getDeclaredConstructor().newInstance());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(setting + ": provider class " + className + " is not on the classpath"
          + (artifact != null ? "; add the artifact " + artifact : ""), e);
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw new IllegalStateException(setting + ": cannot create provider " + className + " (a "
          + type.getSimpleName() + " with a public no-argument constructor): " + e, e);
    }
  }
}
