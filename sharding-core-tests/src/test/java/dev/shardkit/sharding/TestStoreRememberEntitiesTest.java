package dev.shardkit.sharding;

import dev.shardkit.sharding.testsupport.RememberEntitiesScenario;

/** The remember-entities scenario on the testkit's TestRememberStore and the in-memory coordinator state. */
class TestStoreRememberEntitiesTest extends RememberEntitiesScenario {
  @Override
  protected String nodeConfig(int node) {
    return "";
  }

  @Override
  protected String rememberStore() {
    return "test";
  }
}
