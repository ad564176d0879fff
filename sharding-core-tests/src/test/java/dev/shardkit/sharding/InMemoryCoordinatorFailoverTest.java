package dev.shardkit.sharding;

import dev.shardkit.sharding.testsupport.CoordinatorFailoverScenario;

/**
 * The failover scenario with the in-memory store: the successor starts empty and learns the
 * surviving homes from the regions' registrations, so everything but loading the state holds.
 */
class InMemoryCoordinatorFailoverTest extends CoordinatorFailoverScenario {
  @Override
  protected String storeConfig() {
    return "shardkit.sharding.state-store-mode = memory";
  }

  @Override
  protected boolean storeOutlivesCoordinator() {
    return false;
  }
}
