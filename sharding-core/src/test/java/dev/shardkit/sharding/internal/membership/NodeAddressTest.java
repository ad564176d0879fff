package dev.shardkit.sharding.internal.membership;

import static dev.shardkit.sharding.internal.TestRefs.node;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.shardkit.sharding.internal.TestRefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class NodeAddressTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  @Test
  void aRemoteReferenceIsOnTheNodeOfItsAddress() {
    assertEquals(node(2), NodeAddress.of(refs.region(2), node(1)));
  }

  @Test
  void aLocalReferenceIsOnThisNode() {
    assertEquals(node(1), NodeAddress.of(refs.local(), node(1)));
  }
}
