package dev.shardkit.sharding.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

class DatabaseChecksTest {
  private static final String SEVERAL = "pekko.cluster.seed-nodes = [\"pekko://S@10.0.0.1:25520\", "
      + "\"pekko://S@10.0.0.2:25520\"]\n";
  private static final String DB = "pekko-persistence-jdbc.shared-databases.shardkit.db";
  private static final String POSTGRES = DB + " { url = \"jdbc:postgresql://db:5432/shardkit\", "
      + "password = \"s3cret\" }\n";

  private static List<String> warnings(String hocon) {
    Config root = ConfigFactory.parseString(hocon).withFallback(ConfigFactory.load()).resolve();
    return DatabaseChecks.warnings(root, PersistenceStoreSettings.fromConfig(root));
  }

  @Test
  void theDefaultH2FileWithItsEmptyPasswordWarnsTwiceOnANodeOfSeveral() {
    List<String> warnings = warnings(SEVERAL);

    assertEquals(2, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains(DB + ".url = \"jdbc:h2:file:"), warnings.get(0));
    assertTrue(warnings.get(0).contains("H2 file"), warnings.get(0));
    assertTrue(warnings.get(1).contains(DB + ".password"), warnings.get(1));
    assertTrue(warnings.get(1).contains("empty password"), warnings.get(1));
  }

  @Test
  void aSharedDatabaseWithAPasswordIsQuiet() {
    assertEquals(List.of(), warnings(SEVERAL + POSTGRES));
  }

  @Test
  void anEmptyPasswordAloneWarnsNamingThePassword() {
    List<String> warnings = warnings(SEVERAL + POSTGRES + DB + ".password = \"\"");
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains(DB + ".password"), warnings.get(0));
  }

  @Test
  void anH2FileAloneWarnsNamingTheUrl() {
    List<String> warnings = warnings(SEVERAL + POSTGRES + DB + ".url = \"JDBC:H2:FILE:/var/shardkit/db\"");
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains(DB + ".url"), warnings.get(0));
  }

  @Test
  void anInMemoryH2IsNotAFile() {
    assertEquals(List.of(), warnings(SEVERAL + POSTGRES + DB + ".url = \"jdbc:h2:mem:shardkit\""));
  }

  @Test
  void aSingleNodeKeepsTheDefaultsWithoutWarnings() {
    assertEquals(List.of(), warnings(""));
    assertEquals(List.of(), warnings("""
        pekko.remote.artery.canonical { hostname = "10.0.0.1", port = 25520 }
        pekko.cluster.seed-nodes = ["pekko://S@10.0.0.1:25520"]
        """));
  }

  @Test
  void aNodeJoiningAnotherThroughOneSeedIsOneOfSeveral() {
    assertEquals(2, warnings("""
        pekko.remote.artery.canonical { hostname = "10.0.0.2", port = 25520 }
        pekko.cluster.seed-nodes = ["pekko://S@10.0.0.1:25520"]
        """).size());
  }

  @Test
  void aSnapshotStoreOnADatabaseOfItsOwnIsCheckedToo() {
    List<String> warnings = warnings(SEVERAL + POSTGRES + """
        shardkit.sharding.persistence.jdbc-snapshot-store.use-shared-db = "snapshots"
        pekko-persistence-jdbc.shared-databases.snapshots.db { url = "jdbc:h2:file:./snapshots", password = "" }
        """);
    assertEquals(2, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains("pekko-persistence-jdbc.shared-databases.snapshots.db.url"), warnings.get(0));
    assertTrue(warnings.get(1).contains("pekko-persistence-jdbc.shared-databases.snapshots.db.password"),
        warnings.get(1));
  }

  @Test
  void aJournalThatIsNotJdbcIsNotJudged() {
    assertEquals(List.of(), warnings(SEVERAL + """
        shardkit.sharding.persistence.journal-plugin-id = "pekko.persistence.journal.inmem"
        shardkit.sharding.persistence.snapshot-plugin-id = "pekko.persistence.snapshot-store.local"
        """));
  }
}
