package dev.shardkit.sharding.testsupport.persistence;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** Actor systems and calls for tests that use a persistence store directly. */
public final class StoreTestSupport {
  private StoreTestSupport() {}

  /**
   * A system with remoting on a free loopback port (so references from other systems resolve),
   * not joined to any cluster, with {@code config} in front of the defaults.
   */
  public static ActorSystem<Void> system(String name, String config) {
    return ActorSystem.create(Behaviors.empty(), name, config(config));
  }

  /** The config of {@link #system}. */
  public static Config config(String config) {
    return ConfigFactory.parseString(config)
        .withFallback(ConfigFactory.parseString("""
            pekko.actor.provider = cluster
            pekko.remote.artery.canonical { hostname = 127.0.0.1, port = 0 }
            pekko.loglevel = INFO
            pekko.loggers = ["org.apache.pekko.event.slf4j.Slf4jLogger"]
            pekko.logging-filter = "org.apache.pekko.event.slf4j.Slf4jLoggingFilter"
            pekko.cluster.jmx.multi-mbeans-in-same-jvm = on
            pekko.coordinated-shutdown.exit-jvm = off
            """))
        .withFallback(ConfigFactory.load());
  }

  public static void terminate(ActorSystem<?> system) {
    system.terminate();
    try {
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("actor system " + system.name() + " did not stop", e);
    }
  }

  /** The value of {@code stage}, or its failure unwrapped. */
  public static <T> T await(CompletionStage<T> stage) throws Exception {
    try {
      return stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  /** The failure of {@code stage}, which must fail. */
  public static Throwable failureOf(CompletionStage<?> stage) throws Exception {
    try {
      Object value = stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
      throw new AssertionError("expected a failure, got " + value);
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  /** Stores each event in turn, as the coordinator does, and returns the state after the last. */
  public static CoordinatorState storeAll(CoordinatorStateStore store, CoordinatorState from,
      CoordinatorEvent... events) throws Exception {
    CoordinatorState state = from;
    for (CoordinatorEvent e : events) {
      CoordinatorState after = state.applied(e);
      await(store.store(List.of(e), after));
      state = after;
    }
    return state;
  }

  /** Retries a store the way the coordinator does until it succeeds or {@code max} has passed. */
  public static void storeEventually(CoordinatorStateStore store, CoordinatorEvent event, CoordinatorState after,
      Duration max) throws Exception {
    eventually(() -> store.store(List.of(event), after), "store of " + event, max);
  }

  /**
   * Calls {@code call} again with backoff, the way the coordinator and the shard retry a store,
   * until it succeeds or {@code max} has passed; the backoff only paces the attempts.
   */
  public static <T> T eventually(Supplier<CompletionStage<T>> call, String what, Duration max) throws Exception {
    long deadline = System.nanoTime() + max.toNanos();
    long backoff = 100;
    while (true) {
      try {
        return await(call.get());
      } catch (Exception e) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError(what + " did not succeed within " + max, e);
        }
        Thread.sleep(backoff);
        backoff = Math.min(backoff * 2, 2000);
      }
    }
  }

  /** {@code ref} of another system as a reference of {@code in}, as a stored reference is resolved. */
  public static ActorRef<Object> resolveIn(ActorSystem<?> in, ActorSystem<?> owner, ActorRef<?> ref) {
    return ActorRefResolver.get(in).resolveActorRef(ActorRefResolver.get(owner).toSerializationFormat(ref));
  }

  /** The full text of an exception and its causes, for assertions on error messages. */
  public static String fullText(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      sb.append(c.getClass().getName()).append(": ").append(c.getMessage()).append('\n');
    }
    return sb.toString();
  }
}
