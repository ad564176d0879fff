package dev.shardkit.sharding.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PersistenceStoreSettingsTest {

  private static Config with(String overrides) {
    return ConfigFactory.parseString(overrides).withFallback(ConfigFactory.load()).resolve();
  }

  @Test
  void defaultsUseTheModulesOwnJdbcPlugins() {
    Config config = ConfigFactory.load();
    PersistenceStoreSettings s = PersistenceStoreSettings.fromConfig(config);
    assertEquals("shardkit.sharding.persistence.jdbc-journal", s.journalPluginId());
    assertEquals("shardkit.sharding.persistence.jdbc-snapshot-store", s.snapshotPluginId());
    assertEquals(new PersistenceStoreSettings.Retention(1000, 2), s.coordinator());
    assertEquals(new PersistenceStoreSettings.Retention(200, 2), s.rememberEntities());
    assertEquals("shardkit.sharding.persistence.jdbc-read-journal", s.readJournalPluginId());
    assertEquals(Duration.ofSeconds(10), s.storeTimeout());
    assertEquals(Duration.ofSeconds(15), s.keepAliveInterval());
    assertTrue(s.createSchema());
    assertTrue(s.journalIsJdbc(config));
    assertEquals("dev.shardkit.sharding.persistence.PersistenceCoordinatorStateStoreProvider",
        config.getString("shardkit.sharding.state-store-providers.persistence"));
    assertEquals("dev.shardkit.sharding.persistence.PersistenceRememberEntitiesStoreProvider",
        config.getString("shardkit.sharding.remember-entities-store-providers.persistence"));
    // The default read journal reads the default journal: the tool accepts the pair.
    s.requireReadJournalOfJournal(config);
  }

  @Test
  void theRememberedEntitiesHaveTheirOwnRetention() {
    PersistenceStoreSettings s = PersistenceStoreSettings.fromConfig(with("""
        shardkit.sharding.persistence { snapshot-after = 7, remember-entities { snapshot-after = 3 } }
        """));
    assertEquals(new PersistenceStoreSettings.Retention(7, 2), s.coordinator());
    assertEquals(new PersistenceStoreSettings.Retention(3, 2), s.rememberEntities());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PersistenceStoreSettings
        .fromConfig(with("shardkit.sharding.persistence.remember-entities.snapshot-after = 0")));
    assertTrue(e.getMessage().contains("shardkit.sharding.persistence.remember-entities.snapshot-after must be at "
        + "least 1"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> PersistenceStoreSettings
        .fromConfig(with("shardkit.sharding.persistence.remember-entities.keep-nr-of-batches = -1")));
    assertTrue(e.getMessage().contains("remember-entities.keep-nr-of-batches must be at least 1"), e.getMessage());
  }

  @Test
  void aReadJournalOfAnotherJournalIsRefusedNamingBoth() {
    // The application's own pekko-persistence-jdbc journal, but the read journal left at shardkit's.
    Config config = with("shardkit.sharding.persistence.journal-plugin-id = \"jdbc-journal\"");
    PersistenceStoreSettings s = PersistenceStoreSettings.fromConfig(config);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> s.requireReadJournalOfJournal(config));
    assertTrue(e.getMessage().contains("read-journal-plugin-id = \"shardkit.sharding.persistence.jdbc-read-journal\" "
        + "reads the journal \"shardkit.sharding.persistence.jdbc-journal\""), e.getMessage());
    assertTrue(e.getMessage().contains("\"jdbc-read-journal\""), e.getMessage());
    Config both = with("""
        shardkit.sharding.persistence.journal-plugin-id = "jdbc-journal"
        shardkit.sharding.persistence.read-journal-plugin-id = "jdbc-read-journal"
        """);
    PersistenceStoreSettings.fromConfig(both).requireReadJournalOfJournal(both);
  }

  @Test
  void aMissingJdbcDriverIsNamedWithTheArtifactToAdd() {
    Config config = ConfigFactory.load();
    PersistenceStoreSettings s = PersistenceStoreSettings.fromConfig(config);
    // This module's tests have H2 (an optional dependency): the default's driver loads.
    s.requireJdbcDriver(config, getClass().getClassLoader());
    // An application without it: a class loader that sees only the JDK.
    ClassLoader jdkOnly = ClassLoader.getPlatformClassLoader();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> s.requireJdbcDriver(config, jdkOnly));
    assertTrue(e.getMessage().contains("The JDBC driver org.h2.Driver of the journal of shardkit.sharding.persistence "
        + "(pekko-persistence-jdbc.shared-databases.shardkit.db.driver) is not on the classpath: add "
        + "com.h2database:h2"), e.getMessage());

    Config postgres = with("pekko-persistence-jdbc.shared-databases.shardkit.db.driver = \"org.postgresql.Driver\"");
    e = assertThrows(IllegalArgumentException.class,
        () -> PersistenceStoreSettings.fromConfig(postgres).requireJdbcDriver(postgres, jdkOnly));
    assertTrue(e.getMessage().contains("org.postgresql.Driver") && e.getMessage().contains("add org.postgresql:postgresql"),
        e.getMessage());

    // A journal of its own (no shared database) names its driver under slick.db.
    Config own = with("""
        shardkit.sharding.persistence.jdbc-journal.use-shared-db = null
        shardkit.sharding.persistence.jdbc-journal.slick.db.driver = "com.example.NoSuchDriver"
        """);
    e = assertThrows(IllegalArgumentException.class,
        () -> PersistenceStoreSettings.fromConfig(own).requireJdbcDriver(own, getClass().getClassLoader()));
    assertTrue(e.getMessage().contains("com.example.NoSuchDriver of the journal of shardkit.sharding.persistence "
        + "(shardkit.sharding.persistence.jdbc-journal.slick.db.driver)"), e.getMessage());

    // Another journal than pekko-persistence-jdbc's: nothing to check.
    Config inmem = with("""
        shardkit.sharding.persistence.journal-plugin-id = "pekko.persistence.journal.inmem"
        """);
    PersistenceStoreSettings.fromConfig(inmem).requireJdbcDriver(inmem, jdkOnly);
  }

  @Test
  void theDefaultDatabaseIsAnH2FileThatSeveralJvmsCanShare() {
    Config db = ConfigFactory.load().getConfig("pekko-persistence-jdbc.shared-databases.shardkit");
    assertEquals("slick.jdbc.H2Profile$", db.getString("profile"));
    String url = db.getString("db.url");
    assertTrue(url.startsWith("jdbc:h2:file:./shardkit-data/"), url);
    assertTrue(url.contains("AUTO_SERVER=TRUE"), url);
    // The plugins use that database, not the application's jdbc-journal settings.
    assertEquals("shardkit",
        ConfigFactory.load().getString("shardkit.sharding.persistence.jdbc-journal.use-shared-db"));
    assertEquals("shardkit",
        ConfigFactory.load().getString("shardkit.sharding.persistence.jdbc-snapshot-store.use-shared-db"));
  }

  @Test
  void outOfRangeValuesAreRefusedNamingTheKey() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PersistenceStoreSettings.fromConfig(with("shardkit.sharding.persistence.snapshot-after = 0")));
    assertTrue(e.getMessage().contains("shardkit.sharding.persistence.snapshot-after"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> PersistenceStoreSettings.fromConfig(with("shardkit.sharding.persistence.keep-nr-of-batches = 0")));
    assertTrue(e.getMessage().contains("keep-nr-of-batches"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> PersistenceStoreSettings.fromConfig(with("shardkit.sharding.persistence.store-timeout = 0s")));
    assertTrue(e.getMessage().contains("store-timeout"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> PersistenceStoreSettings.fromConfig(with("shardkit.sharding.persistence.keep-alive-interval = 0s")));
    assertTrue(e.getMessage().contains("shardkit.sharding.persistence.keep-alive-interval must be positive"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> PersistenceStoreSettings.fromConfig(with("shardkit.sharding.persistence.snapshot-after = lots")));
    assertTrue(e.getMessage().contains("snapshot-after"), e.getMessage());
  }

  @Test
  void aPluginIdWithoutAPluginIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PersistenceStoreSettings
        .fromConfig(with("shardkit.sharding.persistence.journal-plugin-id = \"no.such.journal\"")));
    assertTrue(e.getMessage().contains("journal-plugin-id = \"no.such.journal\" names no plugin"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> PersistenceStoreSettings
        .fromConfig(with("shardkit.sharding.persistence.read-journal-plugin-id = \"no.such.read-journal\"")));
    assertTrue(e.getMessage().contains("read-journal-plugin-id = \"no.such.read-journal\" names no plugin"),
        e.getMessage());
  }
}
