package dev.shardkit.sharding.internal.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.shard.ShardInput.Deliver;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityStartRefused;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityStarted;
import dev.shardkit.sharding.internal.shard.ShardInput.HandOff;
import dev.shardkit.sharding.internal.shard.ShardInput.Start;
import dev.shardkit.sharding.internal.shard.ShardMachineTest.Ent;
import dev.shardkit.sharding.internal.shard.ShardProtocol.EntitiesLive;
import dev.shardkit.sharding.internal.shard.ShardProtocol.ShardSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;

/**
 * The driver hands a start's reply back before the next input, and keeps what a port that threw
 * left undone, for the shard's next incarnation.
 */
class ShardDriverTest {

  /** Ports that record what they are asked, with a gate that may be closed and an entity whose creation throws. */
  static final class Recording implements ShardPorts<Ent> {
    final List<String> calls = new ArrayList<>();
    boolean gateOpen = true;
    String throwsFor;

    @Override
    public ShardInput<Ent> startEntity(String entityId, List<Object> messages) {
      calls.add("start " + entityId + " " + messages);
      if (entityId.equals(throwsFor)) {
        throw new IllegalStateException("the port fails for " + entityId);
      }
      return gateOpen ? new EntityStarted<>(entityId, new Ent(entityId, 1))
          : new EntityStartRefused<>(entityId, messages);
    }

    @Override
    public void tell(Ent entity, Object message) {
      calls.add("tell " + entity.id() + " " + message);
    }

    @Override
    public void stop(Ent entity) {
      calls.add("stop " + entity.id());
    }

    @Override
    public ShardInput<Ent> rememberLoad(long readId) {
      calls.add("load");
      return null;
    }

    @Override
    public ShardInput<Ent> rememberUpdate(long batchId, Set<String> started, Set<String> stopped) {
      calls.add("update " + started + " " + stopped);
      return null;
    }

    @Override
    public void parkOnGate() {
      calls.add("park");
    }

    @Override
    public void tellRegion(EntitiesLive live) {
      calls.add("region " + live);
    }

    @Override
    public void replySnapshot(ActorRef<Object> to, ShardSnapshot snapshot) {
      calls.add("snapshot " + snapshot);
    }

    @Override
    public void startTimer(ShardTimer key, long generation, Duration delay) {
      calls.add("timer " + key);
    }

    @Override
    public void cancelTimer(ShardTimer key) {
      calls.add("cancel " + key);
    }

    @Override
    public void drop(Object message, String reason) {
      calls.add("drop " + message);
    }

    @Override
    public void report(ShardNotice notice) {
      calls.add("report " + notice.render());
    }

    @Override
    public void stopped() {
      calls.add("stopped");
    }
  }

  static ShardMachine<Ent> machine(ShardCarryOver.Taken taken) {
    return new ShardMachine<>(ShardMachineTest.config(false, Optional.empty(), false, 0), taken, Ent::id);
  }

  @Test
  void aStartsReplyIsHandedBackBeforeTheNextInput() {
    ShardMachine<Ent> m = machine(new ShardCarryOver(Integer.MAX_VALUE).take());
    Recording ports = new Recording();
    ShardDriver<Ent> driver = new ShardDriver<>(m, ports);
    driver.run(new Start<>(), 0);
    driver.run(new Deliver<>("a", "m1"), 0);
    assertEquals(new Ent("a", 1), m.activeFor("a", 0));
    driver.run(new HandOff<>(), 0);
    assertEquals(List.of("start a [m1]", "stop a"), ports.calls);
  }

  @Test
  void refusedStartsAreHandedBackInOrderAndTheShardParksOnce() {
    Map<String, List<Object>> held = new LinkedHashMap<>();
    held.put("a", List.of("a1"));
    held.put("b", List.of("b1"));
    ShardMachine<Ent> m = machine(new ShardCarryOver.Taken(held, false, Integer.MAX_VALUE, 0, 1));
    Recording ports = new Recording();
    ports.gateOpen = false;
    new ShardDriver<>(m, ports).run(new Start<>(), 0);
    assertEquals(List.of("start a [a1]", "start b [b1]", "park"), ports.calls);
    assertEquals(2, m.heldMessages());
  }

  @Test
  void whatAPortThatThrewLeftUndoneGoesToTheNextIncarnation() {
    Map<String, List<Object>> held = new LinkedHashMap<>();
    held.put("a", List.of("a1"));
    held.put("poison", List.of("p1"));
    held.put("z", List.of("z1", "z2"));
    ShardMachine<Ent> m = machine(new ShardCarryOver.Taken(held, false, Integer.MAX_VALUE, 0, 1));
    Recording ports = new Recording();
    ports.throwsFor = "poison";
    ShardDriver<Ent> driver = new ShardDriver<>(m, ports);
    IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> driver.run(new Start<>(), 0));
    assertTrue(thrown.getMessage().contains("poison"));
    assertEquals(List.of("start a [a1]", "start poison [p1]"), ports.calls);
    List<Object> unfinished = driver.unfinished();
    // z's start was not carried out, and a's reply was not handed back: a's incarnation stops with
    // the failed shard (Pekko stops its children), z's messages are given to the next.
    assertEquals(2, unfinished.size());
    assertEquals(new ShardEffect.StartEntity<Ent>("z", List.of("z1", "z2")), unfinished.get(0));
    assertEquals(new EntityStarted<>("a", new Ent("a", 1)), unfinished.get(1));
    ShardCarryOver.Taken next = m.carryOver(unfinished);
    assertEquals(Map.of("z", List.of("z1", "z2")), next.held(), "the failing start's own messages are not kept");
    driver.run(new HandOff<>(), 0);
    assertEquals(List.of(), driver.unfinished(), "forgotten once a run succeeds");
  }
}
