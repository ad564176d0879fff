package dev.shardkit.sharding.internal.store;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.spi.CoordinatorStateStoreProvider;
import org.junit.jupiter.api.Test;

class StateStoresTest {

  private static Config sharding() {
    return ConfigFactory.load().getConfig("shardkit.sharding");
  }

  private static Config sharding(String override) {
    return ConfigFactory.parseString(override).withFallback(sharding());
  }

  @Test
  void memoryModeResolvesToTheInMemoryProvider() {
    CoordinatorStateStoreProvider provider = StateStores.provider(sharding(), "memory");
    assertInstanceOf(InMemoryCoordinatorStateStore.Provider.class, provider);
  }

  @Test
  void ddataWithoutItsModuleNamesTheArtifact() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> StateStores.provider(sharding(), "ddata"));
    assertTrue(e.getMessage().contains("dev.shardkit:sharding-ddata"), e.getMessage());
    assertTrue(e.getMessage().contains("state-store-mode = ddata"), e.getMessage());
  }

  @Test
  void persistenceWithoutItsModuleNamesTheArtifact() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> StateStores.provider(sharding(), "persistence"));
    assertTrue(e.getMessage().contains("dev.shardkit:sharding-persistence"), e.getMessage());
    assertTrue(e.getMessage().contains("state-store-mode = persistence"), e.getMessage());
  }

  @Test
  void unknownModeListsTheKnownModes() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> StateStores.provider(sharding(), "redis"));
    assertTrue(e.getMessage().contains("[redis]"), e.getMessage());
    // Modes with a provider and modes whose module is missing are both worth naming.
    assertTrue(e.getMessage().contains("ddata, memory, persistence"), e.getMessage());
  }

  @Test
  void aModuleOnTheClasspathIsFoundThroughItsConfigEntry() {
    // What a store module's reference.conf adds; here pointed at the memory provider class.
    Config withDdata = sharding("state-store-providers.ddata = \""
        + InMemoryCoordinatorStateStore.Provider.class.getName() + "\"");
    assertNotNull(StateStores.provider(withDdata, "ddata"));
    Config custom = sharding("state-store-providers.custom = \""
        + InMemoryCoordinatorStateStore.Provider.class.getName() + "\"");
    assertInstanceOf(InMemoryCoordinatorStateStore.Provider.class, StateStores.provider(custom, "custom"));
  }

  @Test
  void aMissingProviderClassIsReportedWithItsArtifact() {
    Config broken = sharding("state-store-providers.ddata = \"dev.shardkit.sharding.ddata.NoSuchProvider\"");
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> StateStores.provider(broken, "ddata"));
    assertTrue(e.getMessage().contains("dev.shardkit.sharding.ddata.NoSuchProvider"), e.getMessage());
    assertTrue(e.getMessage().contains("dev.shardkit:sharding-ddata"), e.getMessage());
  }

  @Test
  void aClassThatIsNotAProviderIsReported() {
    Config wrong = sharding("state-store-providers.odd = \"java.lang.StringBuilder\"");
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> StateStores.provider(wrong, "odd"));
    assertTrue(e.getMessage().contains("java.lang.StringBuilder"), e.getMessage());
  }

  @Test
  void rememberEntitiesStoresAreFoundTheSameWay() {
    IllegalStateException missing = assertThrows(IllegalStateException.class,
        () -> StateStores.rememberEntitiesProvider(sharding(), "ddata"));
    assertTrue(missing.getMessage().contains("remember-entities-store = ddata"), missing.getMessage());
    assertTrue(missing.getMessage().contains("dev.shardkit:sharding-ddata"), missing.getMessage());
    Config wrong = sharding("remember-entities-store-providers.odd = \""
        + InMemoryCoordinatorStateStore.Provider.class.getName() + "\"");
    IllegalStateException notOne = assertThrows(IllegalStateException.class,
        () -> StateStores.rememberEntitiesProvider(wrong, "odd"));
    assertTrue(notOne.getMessage().contains("RememberEntitiesStoreProvider"), notOne.getMessage());
  }
}
