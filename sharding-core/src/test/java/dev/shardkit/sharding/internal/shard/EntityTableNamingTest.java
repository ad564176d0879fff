package dev.shardkit.sharding.internal.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The table finds an entity's id from its actor's name (no reverse map per entity): for ids that
 * need URL-encoding too, and never for an earlier incarnation that had the same name.
 */
class EntityTableNamingTest {
  private static ActorTestKit testKit;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create();
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static ActorRef spawnNamedFor(String entityId) {
    return Adapter.toClassic(testKit.spawn(Behaviors.empty(), EntityTable.actorName(entityId)));
  }

  @Test
  void idsThatNeedEncodingAreFoundByName() {
    EntityTable<ActorRef> t = EntityTableTest.table(10, false);
    for (String id : new String[] {"plain-1", "with space", "slash/and?query", "100%", "ümlaut+plus"}) {
      ActorRef ref = spawnNamedFor(id);
      EntityTableTest.start(t, id, ref);
      assertEquals(id, t.idOf(ref), "id of the actor named " + ref.path().name());
    }
  }

  @Test
  void aNameTheTableNeverGivesNamesNoId() {
    assertNull(EntityTable.idFromName("100%"), "not URL-encoded");
    assertEquals("with space", EntityTable.idFromName(EntityTable.actorName("with space")));
  }

  @Test
  void anEarlierIncarnationIsNotTheEntity() {
    EntityTable<ActorRef> t = EntityTableTest.table(10, false);
    ActorRef first = spawnNamedFor("again");
    EntityTableTest.start(t, "again", first);
    t.terminated("again", false, 0);
    testKit.stop(Adapter.toTyped(first));
    ActorRef second = spawnNamedFor("again");
    EntityTableTest.start(t, "again", second);
    assertEquals("again", t.idOf(second));
    assertNull(t.idOf(first));
  }
}
