package dev.shardkit.sharding.ddata;

import dev.shardkit.sharding.testsupport.CoordinatorFailoverScenario;

/** The coordinator's node crashes under traffic; its successor loads the state from ddata. */
class DDataCoordinatorFailoverTest extends CoordinatorFailoverScenario {
  @Override
  protected String storeConfig() {
    return "shardkit.sharding.state-store-mode = ddata";
  }

  @Override
  protected boolean storeOutlivesCoordinator() {
    return true;
  }
}
