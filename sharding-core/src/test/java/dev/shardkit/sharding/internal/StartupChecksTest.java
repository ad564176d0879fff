package dev.shardkit.sharding.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

class StartupChecksTest {
  private static final String SEEDS = "pekko.cluster.seed-nodes = [\"pekko://S@10.0.0.1:25520\", "
      + "\"pekko://S@10.0.0.2:25520\"]\n";
  private static final String SBR = "pekko.cluster.downing-provider-class = "
      + "\"org.apache.pekko.cluster.sbr.SplitBrainResolverProvider\"\n";

  /** The node's configuration over Pekko's defaults, as the actor system sees it. */
  private static Config config(String hocon) {
    return ConfigFactory.parseString(hocon).withFallback(ConfigFactory.load()).resolve();
  }

  @Test
  void seedNodesWithoutADowningProviderWarnNamingTheSettingAndTheResolver() {
    List<String> warnings = StartupChecks.warnings(config(SEEDS));

    assertEquals(1, warnings.size(), warnings.toString());
    String w = warnings.get(0);
    assertTrue(w.contains("pekko.cluster.downing-provider-class"), w);
    assertTrue(w.contains("pekko.cluster.seed-nodes"), w);
    assertTrue(w.contains("org.apache.pekko.cluster.sbr.SplitBrainResolverProvider"), w);
    assertTrue(w.contains("docs/guarantees.md"), w);
  }

  @Test
  void aBlankDowningProviderCountsAsNone() {
    assertEquals(1, StartupChecks.warnings(config(SEEDS + "pekko.cluster.downing-provider-class = \"  \"")).size());
  }

  @Test
  void aDowningProviderSilencesTheWarning() {
    assertEquals(List.of(), StartupChecks.warnings(config(SEEDS + SBR)));
  }

  @Test
  void withoutSeedNodesThereIsNothingToWarnAbout() {
    // Pekko's defaults: no seed nodes (the node joins programmatically) and no downing provider.
    assertEquals(List.of(), StartupChecks.warnings(config("")));
  }

  @Test
  void aSeedNodeListThatIsNotAListIsNamed() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> StartupChecks.warnings(config("pekko.cluster.seed-nodes = { a = 1 }")));
    assertTrue(e.getMessage().contains("pekko.cluster.seed-nodes"), e.getMessage());
  }

  @Test
  void twoSeedNodesAreSeveralNodes() {
    assertTrue(StartupChecks.multiNode(config(SEEDS)));
  }

  @Test
  void noSeedNodesAreNotRecognisedAsSeveralNodes() {
    assertFalse(StartupChecks.multiNode(config("")));
  }

  @Test
  void aNodeWhoseOnlySeedIsItselfIsAlone() {
    assertFalse(StartupChecks.multiNode(config("""
        pekko.remote.artery.canonical { hostname = "10.0.0.1", port = 25520 }
        pekko.cluster.seed-nodes = ["pekko://S@10.0.0.1:25520"]
        """)));
  }

  @Test
  void aNodeWhoseOnlySeedIsAnotherNodeJoinsSeveral() {
    assertTrue(StartupChecks.multiNode(config("""
        pekko.remote.artery.canonical { hostname = "10.0.0.2", port = 25520 }
        pekko.cluster.seed-nodes = ["pekko://S@10.0.0.1:25520"]
        """)));
    assertTrue(StartupChecks.multiNode(config("""
        pekko.remote.artery.canonical { hostname = "10.0.0.1", port = 25521 }
        pekko.cluster.seed-nodes = ["pekko://S@10.0.0.1:25520"]
        """)));
  }

  @Test
  void withPekkosPlaceholderHostnameTheSeedsPortDecides() {
    // Pekko's default canonical hostname is "<getHostAddress>", filled in when the system starts.
    assertFalse(StartupChecks.multiNode(config("""
        pekko.remote.artery.canonical.port = 25520
        pekko.cluster.seed-nodes = ["pekko://S@192.168.1.7:25520"]
        """)));
    assertTrue(StartupChecks.multiNode(config("""
        pekko.remote.artery.canonical.port = 25521
        pekko.cluster.seed-nodes = ["pekko://S@192.168.1.7:25520"]
        """)));
  }

  @Test
  void aSeedThatIsNoAddressIsNotThisNode() {
    assertTrue(StartupChecks.multiNode(config("pekko.cluster.seed-nodes = [\"not an address\"]")));
  }
}
