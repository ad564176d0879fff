package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.EntityProbe;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testkit.TestCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.List;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;

/**
 * A node configured with seed nodes and no downing provider says so once, naming the setting,
 * when sharding starts on it; with a downing provider it says nothing.
 */
class DowningWarningTest {
  private static final EntityTypeKey<EntityProbe.Msg> FIRST = EntityTypeKey.create(EntityProbe.Msg.class, "First");
  private static final EntityTypeKey<EntityProbe.Msg> SECOND = EntityTypeKey.create(EntityProbe.Msg.class, "Second");
  private static final String SETTING = "pekko.cluster.downing-provider-class";

  /** A node whose seed node is itself, on a port chosen here (a seed must be known in advance). */
  private static String seededAtItself(String downingProvider) {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return "pekko.remote.artery.canonical.port = " + port + "\n"
        + "pekko.cluster.seed-nodes = [\"pekko://DowningWarning@127.0.0.1:" + port + "\"]\n"
        + SETTING + " = \"" + downingProvider + "\"\n";
  }

  /** The warnings about the downing provider that starting two entity types on such a node logs. */
  private static List<String> warningsAtStart(String config) {
    EntityProbe probe = new EntityProbe();
    try (LogCapture log = new LogCapture(); TestCluster cluster = new TestCluster("DowningWarning")) {
      ActorSystem<Void> node = cluster.add(config);
      ClusterSharding.get(node).start(Entity.of(FIRST, probe::behavior));
      ClusterSharding.get(node).start(Entity.of(SECOND, probe::behavior));
      // Logged on the caller's thread inside start, so it is there by now.
      return log.matching(SETTING).stream().map(LogCapture::fullText).toList();
    }
  }

  @Test
  void withoutADowningProviderTheFirstStartWarnsOnceNamingTheSetting() {
    List<String> warnings = warningsAtStart(seededAtItself(""));

    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains("pekko.cluster.seed-nodes"), warnings.get(0));
    assertTrue(warnings.get(0).contains("org.apache.pekko.cluster.sbr.SplitBrainResolverProvider"), warnings.get(0));
  }

  @Test
  void withTheSplitBrainResolverNothingIsSaid() {
    assertEquals(List.of(), warningsAtStart(seededAtItself("org.apache.pekko.cluster.sbr.SplitBrainResolverProvider")));
  }
}
