package dev.shardkit.sharding.internal;

import com.typesafe.config.Config;
import dev.shardkit.sharding.spi.CoordinatorStateStoreProvider;
import java.util.TreeSet;

/**
 * Finds the {@link CoordinatorStateStoreProvider} of a {@code state-store-mode}: store modules
 * name their provider class under {@code shardkit.sharding.state-store-providers}; a mode whose
 * module is missing is reported with the artifact to add.
 */
public final class StateStores {
  private StateStores() {}

  /**
   * @param sharding the {@code shardkit.sharding} config
   * @throws IllegalStateException if the mode's module is not on the classpath
   * @throws IllegalArgumentException if the mode is unknown
   */
  public static CoordinatorStateStoreProvider provider(Config sharding, String mode) {
    Config providers = sharding.getConfig("state-store-providers");
    Config artifacts = sharding.getConfig("state-store-artifacts");
    String artifact = artifacts.hasPath(mode) ? artifacts.getString(mode) : null;
    if (!providers.hasPath(mode)) {
      if (artifact != null) {
        throw new IllegalStateException("shardkit.sharding.state-store-mode = " + mode + " needs the artifact "
            + artifact + " on the classpath; add it as a dependency");
      }
      TreeSet<String> known = new TreeSet<>(providers.root().keySet());
      known.addAll(artifacts.root().keySet());
      throw new IllegalArgumentException("Unknown shardkit.sharding.state-store-mode [" + mode + "]; known modes: "
          + String.join(", ", known));
    }
    String className = providers.getString(mode);
    try {
      Class<?> c = Class.forName(className, true, StateStores.class.getClassLoader());
      return (CoordinatorStateStoreProvider) c.getDeclaredConstructor().newInstance();
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("shardkit.sharding.state-store-mode = " + mode + ": provider class " + className
          + " is not on the classpath" + (artifact != null ? "; add the artifact " + artifact : ""), e);
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw new IllegalStateException("shardkit.sharding.state-store-mode = " + mode + ": cannot create provider "
          + className + ": " + e, e);
    }
  }
}
