package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testkit.CborSerializable;
import dev.shardkit.sharding.testsupport.Ledger;
import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The ref {@code start} returns routes on the sender's thread (through the same path as
 * {@code EntityRef}) and is still an ordinary actor ref: one sender mixing it, {@code EntityRef}
 * tells and {@code EntityRef} asks keeps its order and loses nothing while shards move; it
 * survives a trip to another node and back into a ref that routes, can be asked there and here,
 * and is watched, locally and remotely, until its region stops.
 */
class RegionEntranceTest {
  static final EntityTypeKey<Ledger.Command> LEDGER = EntityTypeKey.create(Ledger.Command.class, "Entrance");
  static final EntityTypeKey<Recorder.Command> RECORDER = EntityTypeKey.create(Recorder.Command.class, "EntranceRef");

  /** A ledger message that also asks for a reply: the entity records it like any other, then answers its seq. */
  record Asked(String sender, int seq, ActorRef<Integer> replyTo) implements Ledger.Command, CborSerializable {}

  final Ledger ledger = new Ledger();
  TestCluster cluster;

  @AfterEach
  void stop() {
    cluster.close();
  }

  ActorRef<ShardingEnvelope<Ledger.Command>> startLedger(ActorSystem<?> system) {
    return ClusterSharding.get(system).start(Entity.of(LEDGER, this::answering)
        .withSettings(ShardingSettings.create(system).withNumberOfShards(RebalanceTest.SHARDS)));
  }

  /** The ledger's entity, which also takes {@link Asked}: recorded in the same stream as {@code Msg}, then answered. */
  Behavior<Ledger.Command> answering(EntityContext<Ledger.Command> ctx) {
    return Behaviors.intercept(() -> new BehaviorInterceptor<Ledger.Command, Ledger.Command>(Ledger.Command.class) {
      @Override
      public Behavior<Ledger.Command> aroundReceive(TypedActorContext<Ledger.Command> c, Ledger.Command msg,
          ReceiveTarget<Ledger.Command> target) {
        if (msg instanceof Asked asked) {
          Behavior<Ledger.Command> next = target.apply(c, new Ledger.Msg(asked.sender(), asked.seq()));
          asked.replyTo().tell(asked.seq());
          countProcessed(asked.sender());
          return next;
        }
        Behavior<Ledger.Command> next = target.apply(c, msg);
        if (msg instanceof Ledger.Msg m) {
          countProcessed(m.sender());
        }
        return next;
      }
    }, ledger.entity(ctx));
  }

  /** Messages processed per sender, over every entity; {@link #progress} is notified every 100. */
  final Map<String, AtomicLong> processed = new ConcurrentHashMap<>();
  final Object progress = new Object();

  AtomicLong processed(String sender) {
    return processed.computeIfAbsent(sender, k -> new AtomicLong());
  }

  void countProcessed(String sender) {
    if (processed(sender).incrementAndGet() % 100 == 0) {
      synchronized (progress) {
        progress.notifyAll();
      }
    }
  }

  @Test
  void oneSenderMixingTheEntranceEntityRefTellsAndAsksKeepsOrderWhileShardsMove() throws Exception {
    cluster = new TestCluster("EntranceMix").startNodes(2);
    List<ActorRef<ShardingEnvelope<Ledger.Command>>> entrances = new ArrayList<>();
    cluster.systems().forEach(s -> entrances.add(startLedger(s)));
    List<String> entities = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      entities.add("e-" + i);
    }
    // The senders go on, round after round, until the shards have spread over the third node.
    AtomicBoolean moved = new AtomicBoolean();
    Map<String, Integer> sent = new ConcurrentHashMap<>();
    List<CompletableFuture<Integer>> asks = new ArrayList<>();
    List<Integer> askedSeqs = new ArrayList<>();
    Thread[] senders = new Thread[2];
    for (int n = 0; n < 2; n++) {
      ActorSystem<?> system = cluster.system(n);
      ActorRef<ShardingEnvelope<Ledger.Command>> entrance = entrances.get(n);
      String name = "node-" + n;
      senders[n] = new Thread(() -> {
        List<EntityRef<Ledger.Command>> refs = entities.stream()
            .map(id -> ClusterSharding.get(system).entityRefFor(LEDGER, id)).toList();
        int seq = 0;
        while (!moved.get()) {
          seq++;
          for (int e = 0; e < entities.size(); e++) {
            // Each entity's stream switches route at every message: entrance, EntityRef tell, EntityRef ask.
            int route = (seq + e) % 3;
            if (route == 0) {
              entrance.tell(new ShardingEnvelope<>(entities.get(e), new Ledger.Msg(name, seq)));
            } else if (route == 1) {
              refs.get(e).tell(new Ledger.Msg(name, seq));
            } else if (e % 10 == 0) {
              int s = seq;
              CompletableFuture<Integer> answer = refs.get(e).<Integer>ask(r -> new Asked(name, s, r),
                  Duration.ofSeconds(30)).toCompletableFuture();
              synchronized (asks) {
                asks.add(answer);
                askedSeqs.add(s);
              }
            } else {
              refs.get(e).tell(new Ledger.Msg(name, seq));
            }
          }
          sent.put(name, seq);
          if (seq % 5 == 0) {
            try {
              Thread.sleep(100);
              // Unpaced senders on a slow machine would fill the remote-delivery buffer, whose drops
              // are a documented overflow (BurstDeliveryTest), not what this test is about: a
              // sender goes on only while at most 40 of its rounds are not yet processed.
              synchronized (progress) {
                while (!moved.get() && (long) seq * entities.size() - processed(name).get() > 40L * entities.size()) {
                  progress.wait(100);
                }
              }
            } catch (InterruptedException ex) {
              throw new IllegalStateException(ex);
            }
          }
        }
        sent.put(name, seq);
      }, "entrance-sender-" + n);
      senders[n].start();
    }
    // A third node joins while they send: shards move to it, and callers' routes switch mid-stream.
    ActorSystem<Void> third = cluster.addWithRoles();
    cluster.awaitUp(3);
    startLedger(third);
    TestCluster.await(Duration.ofSeconds(60), () -> entities.stream().filter(id -> ledger.incarnations(id) > 1).count() >= 20,
        "entities moved to the third node");
    // A few more rounds after the moves: the routes that switched back to the shortcut carry traffic too.
    Map<String, Integer> atMoves = Map.copyOf(sent);
    TestCluster.await(Duration.ofSeconds(30), () -> sent.size() == 2 && sent.entrySet().stream()
        .allMatch(e -> e.getValue() >= atMoves.getOrDefault(e.getKey(), 0) + 10), "ten more rounds from each sender");
    moved.set(true);
    for (Thread t : senders) {
      t.join();
    }
    Ledger.Report report = ledger.awaitAndCheck(entities, sent, Duration.ofSeconds(60));
    assertTrue(report.clean(), "ledger: " + report);
    assertTrue(entities.stream().anyMatch(id -> ledger.incarnations(id) > 1), "entities moved while the senders sent");
    for (int i = 0; i < asks.size(); i++) {
      assertEquals(askedSeqs.get(i), asks.get(i).get(30, TimeUnit.SECONDS), "the answer to ask " + i);
    }
  }

  @Test
  void theEntranceTravelsToAnotherNodeRoutesFromThereIsAskedAndWatchedUntilItsRegionStops() throws Exception {
    cluster = Recorder.startCluster("EntranceTrip", 2, RECORDER, 10);
    ActorSystem<Void> home = cluster.system(0);
    ActorSystem<Void> other = cluster.system(1);
    ActorRef<ShardingEnvelope<Recorder.Command>> entrance = ClusterSharding.get(home)
        .start(Entity.of(RECORDER, Recorder::create));
    assertEquals(entrance, ClusterSharding.get(home).startProxy(RECORDER, Optional.empty()),
        "start and startProxy return the same entrance for a type already started");

    // The ref goes to the other node inside a message (serialize-messages is on, and it crosses the wire).
    TestProbe<Recorder.Report> reports = TestProbe.create(home);
    ActorRef<Relay> relay = other.systemActorOf(relay(), "relay", Props.empty());
    ActorRef<Relay> relayFromHome = ActorRefResolver.get(home)
        .resolveActorRef(ActorRefResolver.get(other).toSerializationFormat(relay));
    relayFromHome.tell(new Relay(entrance, "traveller", reports.getRef()));
    Recorder.Report report = reports.receiveMessage(Duration.ofSeconds(15));
    assertEquals("traveller", report.entityId());
    assertEquals(Map.of("relay", 2), report.lastSeq(), "both messages sent through the travelled ref, in order");
    assertEquals(0, report.outOfOrder());

    // Asked here, on the sender's thread.
    Recorder.Report asked = AskPattern.<ShardingEnvelope<Recorder.Command>, Recorder.Report>ask(entrance,
        r -> new ShardingEnvelope<>("traveller", new Recorder.Get(r)), Duration.ofSeconds(10), home.scheduler())
        .toCompletableFuture().get(15, TimeUnit.SECONDS);
    assertEquals(2, asked.received());

    // Watched here and from the other node, through a ref resolved there.
    ActorRef<ShardingEnvelope<Recorder.Command>> entranceThere = ActorRefResolver.get(other)
        .resolveActorRef(ActorRefResolver.get(home).toSerializationFormat(entrance));
    assertEquals(entrance.path().toStringWithoutAddress(), entranceThere.path().toStringWithoutAddress());
    // Each watcher also watches an actor that never existed on the entrance's node, after the
    // entrance: that one's stop is reported at once and, watched over the same path, after the
    // entrance's if the entrance had been gone. Once both watchers have heard it, an early stop of
    // the entrance would have been heard.
    String never = ActorRefResolver.get(home).toSerializationFormat(entrance).replace(entrance.path().name(),
        "never-started");
    TestProbe<Object> heard = TestProbe.create(home);
    AtomicBoolean shuttingDown = new AtomicBoolean();
    home.systemActorOf(watcher(entrance, ActorRefResolver.get(home).resolveActorRef(never), heard.getRef(),
        shuttingDown), "watcher", Props.empty());
    other.systemActorOf(watcher(entranceThere, ActorRefResolver.get(other).resolveActorRef(never), heard.getRef(),
        shuttingDown), "watcher", Props.empty());
    assertEquals(List.of(Watching.INSTANCE, Watching.INSTANCE), List.of(heard.receiveMessage(Duration.ofSeconds(10)),
        heard.receiveMessage(Duration.ofSeconds(10))), "neither watcher heard the entrance stop before it was asked to");
    shuttingDown.set(true);
    ClusterSharding.get(home).gracefulShutdown(RECORDER, Duration.ofSeconds(20)).toCompletableFuture()
        .get(25, TimeUnit.SECONDS);
    Heard one = (Heard) heard.receiveMessage(Duration.ofSeconds(10));
    Heard two = (Heard) heard.receiveMessage(Duration.ofSeconds(10));
    assertEquals(List.of(entrance.path().toStringWithoutAddress(), entrance.path().toStringWithoutAddress()),
        List.of(one.ref().path().toStringWithoutAddress(), two.ref().path().toStringWithoutAddress()),
        "both watchers heard the entrance stop");
    assertTrue(one.whileShuttingDown() && two.whileShuttingDown(), "neither heard it before its region shut down");
    // The region has stopped, so there is nothing left to hand off: a later graceful shutdown (the
    // node's own, when it leaves) completes as soon as it hears so, not when its long timeout ends.
    ClusterSharding.get(home).gracefulShutdown(RECORDER, Duration.ofMinutes(10)).toCompletableFuture()
        .get(20, TimeUnit.SECONDS);
  }

  /** A watcher heard {@code ref} stop, and whether the test had begun shutting its region down by then. */
  record Heard(ActorRef<?> ref, boolean whileShuttingDown) implements CborSerializable {}

  /** A watcher heard the actor that never existed stop, and nothing before it. */
  enum Watching implements CborSerializable { INSTANCE }

  /**
   * Watches {@code ref}, then {@code never} (an actor that does not exist where {@code ref} lives);
   * tells {@code heard} {@link Watching} when it hears {@code never} stop, and {@link Heard} when
   * {@code ref} stops, with whether {@code shuttingDown} was set by then.
   */
  static Behavior<Void> watcher(ActorRef<?> ref, ActorRef<?> never, ActorRef<Object> heard,
      AtomicBoolean shuttingDown) {
    return Behaviors.setup(ctx -> {
      ctx.watch(ref);
      ctx.watch(never);
      return Behaviors.receive(Void.class)
          .onSignal(Terminated.class, t -> {
            if (t.getRef().equals(never)) {
              heard.tell(Watching.INSTANCE);
              return Behaviors.same();
            }
            heard.tell(new Heard(t.getRef(), shuttingDown.get()));
            return Behaviors.stopped();
          })
          .build();
    });
  }

  /** Sends two numbered messages and a {@code Get} for one entity through a region ref it was given. */
  record Relay(ActorRef<ShardingEnvelope<Recorder.Command>> region, String entityId,
      ActorRef<Recorder.Report> replyTo) implements CborSerializable {}

  static Behavior<Relay> relay() {
    return Behaviors.receiveMessage(r -> {
      r.region().tell(new ShardingEnvelope<>(r.entityId(), new Recorder.Msg("relay", 1)));
      r.region().tell(new ShardingEnvelope<>(r.entityId(), new Recorder.Msg("relay", 2)));
      r.region().tell(new ShardingEnvelope<>(r.entityId(), new Recorder.Get(r.replyTo())));
      return Behaviors.same();
    });
  }
}
