package dev.shardkit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExampleOptionsTest {

  private static ExampleOptions parse(Map<String, String> env, String... args) {
    return ExampleOptions.parse("Node", ExampleOptions.NODE_OPTIONS, args, env);
  }

  private static Config config(Map<String, String> env, String... args) {
    return parse(env, args).config("");
  }

  private static void assertRejected(String expectedInMessage, Map<String, String> env, String... args) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> config(env, args));
    assertTrue(e.getMessage().contains(expectedInMessage), "message should contain [" + expectedInMessage + "]: "
        + e.getMessage());
  }

  @Test
  void withoutOptionsTheNodeTakesNodeConf() {
    Config c = config(Map.of());
    assertEquals(2551, c.getInt("pekko.remote.artery.canonical.port"));
    assertEquals("127.0.0.1", c.getString("pekko.remote.artery.canonical.hostname"));
    assertEquals(List.of("pekko://examples@127.0.0.1:2551", "pekko://examples@127.0.0.1:2552"),
        c.getStringList("pekko.cluster.seed-nodes"));
    assertEquals(List.of("backend"), c.getStringList("pekko.cluster.roles"));
    assertEquals("cluster", c.getString("pekko.actor.provider"));
    assertEquals("ddata", c.getString("shardkit.sharding.state-store-mode"));
    // The libraries' reference.conf is behind it.
    assertEquals(60, c.getDuration("shardkit.sharding.hand-off-timeout").toSeconds());
  }

  @Test
  void flagsOverrideTheFile() {
    Config c = config(Map.of(), "--port", "2553", "--seed-nodes", "10.0.0.1:25520,pekko://examples@10.0.0.2:25520",
        "--roles", "frontend,metrics", "--hostname", "10.0.0.3");
    assertEquals(2553, c.getInt("pekko.remote.artery.canonical.port"));
    assertEquals("10.0.0.3", c.getString("pekko.remote.artery.canonical.hostname"));
    assertEquals(List.of("pekko://examples@10.0.0.1:25520", "pekko://examples@10.0.0.2:25520"),
        c.getStringList("pekko.cluster.seed-nodes"));
    assertEquals(List.of("frontend", "metrics"), c.getStringList("pekko.cluster.roles"));
  }

  @Test
  void flagsMayUseAnEqualsSign() {
    assertEquals(2554, config(Map.of(), "--port=2554").getInt("pekko.remote.artery.canonical.port"));
  }

  @Test
  void environmentVariablesOverrideTheFileAndFlagsOverrideThem() {
    Map<String, String> env = Map.of("SHARDKIT_PORT", "2600", "SHARDKIT_ROLES", "frontend",
        "SHARDKIT_SEED_NODES", "127.0.0.1:2600");
    Config fromEnv = config(env);
    assertEquals(2600, fromEnv.getInt("pekko.remote.artery.canonical.port"));
    assertEquals(List.of("frontend"), fromEnv.getStringList("pekko.cluster.roles"));
    assertEquals(List.of("pekko://examples@127.0.0.1:2600"), fromEnv.getStringList("pekko.cluster.seed-nodes"));
    Config flagWins = config(env, "--port", "2601");
    assertEquals(2601, flagWins.getInt("pekko.remote.artery.canonical.port"));
    assertEquals(List.of("frontend"), flagWins.getStringList("pekko.cluster.roles"));
  }

  @Test
  void programDefaultsComeBetweenTheOptionsAndTheFile() {
    String clientDefaults = "pekko.remote.artery.canonical.port = 0\npekko.cluster.roles = [client]\n";
    Config client = parse(Map.of()).config(clientDefaults);
    assertEquals(0, client.getInt("pekko.remote.artery.canonical.port"));
    assertEquals(List.of("client"), client.getStringList("pekko.cluster.roles"));
    assertEquals(7000, parse(Map.of(), "--port", "7000").config(clientDefaults)
        .getInt("pekko.remote.artery.canonical.port"));
  }

  @Test
  void aMalformedPortIsRejectedNamingTheFlagOrVariable() {
    assertRejected("--port must be a whole number from 0 to 65535", Map.of(), "--port", "25x1");
    assertRejected("got [70000]", Map.of(), "--port", "70000");
    assertRejected("got [-1]", Map.of(), "--port=-1");
    assertRejected("environment variable SHARDKIT_PORT must be a whole number", Map.of("SHARDKIT_PORT", "abc"));
  }

  @Test
  void malformedSeedNodesAndRolesAreRejectedNamingTheFlag() {
    assertRejected("--seed-nodes must be comma-separated host:port", Map.of(), "--seed-nodes", "127.0.0.1");
    assertRejected("got [localhost:] in", Map.of(), "--seed-nodes", "127.0.0.1:2551,localhost:");
    assertRejected("names another actor system", Map.of(), "--seed-nodes", "pekko://other@127.0.0.1:2551");
    assertRejected("--roles must be comma-separated role names", Map.of(), "--roles", "backend,,x");
    assertRejected("--hostname must be a host name", Map.of(), "--hostname", "a b");
  }

  @Test
  void unknownFlagsAndMissingValuesAreRejected() {
    IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
        () -> parse(Map.of(), "--prot", "2551"));
    assertEquals("unknown argument [--prot]", unknown.getMessage());
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
        () -> parse(Map.of(), "--port"));
    assertTrue(missing.getMessage().startsWith("--port needs a value"), missing.getMessage());
    IllegalArgumentException followedByFlag = assertThrows(IllegalArgumentException.class,
        () -> parse(Map.of(), "--port", "--roles", "x"));
    assertTrue(followedByFlag.getMessage().startsWith("--port needs a value"), followedByFlag.getMessage());
  }

  @Test
  void aMissingConfigurationIsRejectedNamingIt() {
    assertRejected("--config: no file or resource [nope.conf]", Map.of(), "--config", "nope.conf");
  }

  @Test
  void thePostgresConfigurationIncludesNodeConfAndTakesTheDatabaseFromItsDefaults() {
    Config c = config(Map.of(), "--config", "node-postgres.conf", "--port", "2552");
    assertEquals("persistence", c.getString("shardkit.sharding.state-store-mode"));
    assertEquals(2552, c.getInt("pekko.remote.artery.canonical.port"));
    assertEquals(List.of("backend"), c.getStringList("pekko.cluster.roles"));
    assertEquals("slick.jdbc.PostgresProfile$", c.getString("pekko-persistence-jdbc.shared-databases.shardkit.profile"));
    assertEquals("org.postgresql.Driver",
        c.getString("pekko-persistence-jdbc.shared-databases.shardkit.db.driver"));
    // Unless the environment names another database (as SHARDKIT_DB_URL), this one.
    if (System.getenv("SHARDKIT_DB_URL") == null) {
      assertEquals("jdbc:postgresql://127.0.0.1:5432/shardkit",
          c.getString("pekko-persistence-jdbc.shared-databases.shardkit.db.url"));
    }
  }

  @Test
  void helpIsASwitch() {
    ExampleOptions o = parse(Map.of(), "--help");
    assertTrue(o.help());
    assertTrue(o.usage().contains("--seed-nodes VALUE"), o.usage());
    assertTrue(o.usage().contains("SHARDKIT_SEED_NODES"), o.usage());
  }
}
