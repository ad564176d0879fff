package dev.shardkit.sharding.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.testsupport.EntityProbe;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testkit.TestCluster;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default database (an H2 file, empty password) on a cluster of two nodes that find each
 * other through a seed node: the node that joins another warns once about each, naming the
 * setting, when its stores start; the seed node, whose only seed is itself, looks alone by its
 * configuration and says nothing.
 */
class DatabaseWarningTest {
  private static final EntityTypeKey<EntityProbe.Msg> KEY = EntityTypeKey.create(EntityProbe.Msg.class, "Warned");
  private static final String DB = "pekko-persistence-jdbc.shared-databases.shardkit.db";

  @TempDir
  Path dir;

  @Test
  void theJoiningNodeWarnsOnceAboutTheH2FileAndTheEmptyPassword() throws IOException {
    int seedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      seedPort = socket.getLocalPort();
    }
    String seed = "pekko://DatabaseWarning@127.0.0.1:" + seedPort;
    // Both stores of this module, so both providers start on each node: still one warning each.
    String common = DB + ".url = \"jdbc:h2:file:" + dir.resolve("state").toAbsolutePath() + ";AUTO_SERVER=TRUE\"\n"
        + "shardkit.sharding.state-store-mode = persistence\n"
        + "shardkit.sharding.remember-entities = on\n"
        + "shardkit.sharding.remember-entities-store = persistence\n"
        + "pekko.cluster.seed-nodes = [\"" + seed + "\"]\n";
    EntityProbe probe = new EntityProbe();
    try (LogCapture log = new LogCapture(); TestCluster cluster = new TestCluster("DatabaseWarning")) {
      ActorSystem<Void> seedNode = cluster.add(common + "pekko.remote.artery.canonical.port = " + seedPort);
      ActorSystem<Void> joining = cluster.add(common);
      for (ActorSystem<Void> node : List.of(seedNode, joining)) {
        ClusterSharding.get(node).start(Entity.of(KEY, probe::behavior));
      }
      // Logged on the caller's thread inside start, so both are there by now.
      List<String> h2 = texts(log, DB + ".url", "H2 file");
      List<String> password = texts(log, DB + ".password", "empty password");

      assertEquals(1, h2.size(), h2.toString());
      assertEquals(1, password.size(), password.toString());
      String joiningAddress = joining.address().toString();
      assertTrue(h2.get(0).contains(joiningAddress), h2.get(0));
      assertTrue(password.get(0).contains(joiningAddress), password.get(0));
    }
  }

  private static List<String> texts(LogCapture log, String... parts) {
    return log.matching(parts).stream().map(LogCapture::fullText).toList();
  }
}
