package dev.shardkit.sharding.ddata;

import dev.shardkit.sharding.testsupport.RememberEntitiesScenario;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sharding-core's remember-entities scenario in ddata mode: coordinator state in memory, and
 * remembered entities in the durable replicator, each node with an LMDB directory of its own that
 * node i finds again when the whole cluster restarts.
 */
class DDataRememberEntitiesTest extends RememberEntitiesScenario {
  @TempDir
  Path disks;

  @Override
  protected String nodeConfig(int node) {
    return "shardkit.sharding.state-store-mode = ddata\n"
        + "shardkit.sharding.remember-entities-store = ddata\n"
        + "shardkit.sharding.ddata.remember-entities.lmdb.dir = \"" + disks.resolve("node-" + node) + "\"\n";
  }

  @Override
  protected String rememberStore() {
    return "ddata";
  }

  /** The crashed node's replica is gone with it: what it remembered is read from the others'. */
  @Override
  @Test
  protected void rememberedEntitiesRunAgainElsewhereAfterTheirNodeCrashes() {
    super.rememberedEntitiesRunAgainElsewhereAfterTheirNodeCrashes();
  }
}
