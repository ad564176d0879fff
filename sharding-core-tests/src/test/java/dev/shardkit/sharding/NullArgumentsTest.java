package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import dev.shardkit.sharding.testkit.ShardingTestKit;
import dev.shardkit.sharding.testkit.TestCluster;
import dev.shardkit.sharding.testkit.TestRememberStore;
import dev.shardkit.sharding.testkit.TestEntityRef;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The null rule of the public API, checked for every public constructor and method of the classes
 * users call: given null for a parameter that is not {@code @Nullable} (and valid values for the
 * others), each fails with an {@link IllegalArgumentException} whose message names the method and
 * the parameter, and nothing else.
 */
class NullArgumentsTest {
  interface Command {}

  record Ping() implements Command {}

  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "NullArgs");
  static ShardingTestKit kit;

  /** A valid value of each parameter type the checked classes take. */
  static final Map<Class<?>, Object> SAMPLES = new HashMap<>();

  @BeforeAll
  static void start() {
    kit = ShardingTestKit.create("NullArguments", "");
    ActorSystem<Void> system = kit.system();
    Function<EntityContext<Command>, Behavior<Command>> create = ctx -> Behaviors.ignore();
    ShardingSettings settings = ShardingSettings.create(system);
    kit.sharding().start(Entity.of(KEY, create));
    SAMPLES.put(String.class, "x");
    SAMPLES.put(Object.class, new Ping());
    SAMPLES.put(Class.class, Command.class);
    SAMPLES.put(EntityTypeKey.class, KEY);
    SAMPLES.put(Optional.class, Optional.empty());
    SAMPLES.put(Duration.class, Duration.ofSeconds(1));
    SAMPLES.put(ShardingSettings.class, settings);
    SAMPLES.put(RemoteDeliverySettings.class, settings.remoteDelivery());
    SAMPLES.put(Config.class, system.settings().config().getConfig("shardkit.sharding"));
    SAMPLES.put(MessageExtractor.class, new StableHashMessageExtractor<Command>(10));
    SAMPLES.put(ShardAllocationStrategy.class, new LeastShardAllocationStrategy());
    SAMPLES.put(Function.class, create);
    SAMPLES.put(Entity.class, Entity.of(KEY, create));
    SAMPLES.put(ActorSystem.class, system);
    SAMPLES.put(String[].class, new String[0]);
    SAMPLES.put(java.util.function.BooleanSupplier.class, (java.util.function.BooleanSupplier) () -> true);
    SAMPLES.put(Set.class, Set.of());
    SAMPLES.put(org.apache.pekko.actor.ActorSystem.class, org.apache.pekko.actor.typed.javadsl.Adapter.toClassic(system));
    SAMPLES.put(org.apache.pekko.actor.typed.Props.class, org.apache.pekko.actor.typed.Props.empty());
    SAMPLES.put(ActorRef.class, system.deadLetters());
  }

  @AfterAll
  static void stop() {
    kit.close();
  }

  @Test
  void theEntryPoint() {
    assertEveryNullIsRefusedByName(ClusterSharding.class, kit.sharding());
  }

  @Test
  void entityTypeDefinitions() {
    assertEveryNullIsRefusedByName(Entity.class, SAMPLES.get(Entity.class));
    assertEveryNullIsRefusedByName(EntityTypeKey.class, KEY);
  }

  @Test
  void settings() {
    assertEveryNullIsRefusedByName(ShardingSettings.class, SAMPLES.get(ShardingSettings.class));
  }

  @Test
  void theTestkit() {
    TestCluster unstarted = new TestCluster("NullArgsUnstarted");
    SAMPLES.put(TestCluster.class, unstarted);
    assertEveryNullIsRefusedByName(TestCluster.class, unstarted);
    assertEveryNullIsRefusedByName(ShardingTestKit.class, kit);
    assertEveryNullIsRefusedByName(TestRememberStore.class, kit.rememberStore());
  }

  @Test
  void healthChecks() {
    assertEveryNullIsRefusedByName(ShardingReadinessCheck.class, null);
    assertEveryNullIsRefusedByName(ShardingLivenessCheck.class, null);
  }

  @Test
  void entityRefs() {
    assertEveryNullIsRefusedByName(EntityRef.class, kit.sharding().entityRefFor(KEY, "e-1"));
    assertEveryNullIsRefusedByName(TestEntityRef.class,
        TestEntityRef.of(KEY, "e-2", kit.testKit().<Command>createTestProbe().ref(), kit.system()));
  }

  /**
   * Calls each public constructor and method of {@code type} (declared by it or the interfaces it
   * implements, not by {@code Object}) once per reference parameter, with null there.
   */
  private static void assertEveryNullIsRefusedByName(Class<?> type, Object instance) {
    List<String> failures = new ArrayList<>();
    int checked = 0;
    List<Executable> executables = new ArrayList<>(List.of(type.getConstructors()));
    for (Method m : type.getMethods()) {
      // equals takes null by its contract.
      boolean isEquals = m.getName().equals("equals") && m.getParameterCount() == 1;
      if (m.getDeclaringClass() != Object.class && !m.isSynthetic() && !m.isBridge() && !isEquals) {
        executables.add(m);
      }
    }
    for (Executable executable : executables) {
      Parameter[] parameters = executable.getParameters();
      for (int i = 0; i < parameters.length; i++) {
        Parameter p = parameters[i];
        if (p.getType().isPrimitive() || p.getAnnotatedType().isAnnotationPresent(Nullable.class)) {
          continue;
        }
        checked++;
        String where = type.getSimpleName() + "." + executable.getName() + " with null " + p.getName();
        Object[] args = new Object[parameters.length];
        for (int j = 0; j < parameters.length; j++) {
          args[j] = j == i ? null : sample(parameters[j]);
        }
        Throwable thrown = invoke(executable, instance, args);
        String name = executable instanceof Constructor<?> ? type.getSimpleName() : executable.getName();
        if (!(thrown instanceof IllegalArgumentException)) {
          failures.add(where + ": threw " + thrown);
        } else if (!thrown.getMessage().contains(name) || !thrown.getMessage().contains(p.getName())) {
          failures.add(where + ": the message does not name the method and the argument: " + thrown.getMessage());
        }
      }
    }
    assertTrue(checked > 0, "no parameter of " + type + " checked");
    assertEquals(List.of(), failures, "every null refused by name (" + checked + " checked)");
  }

  private static Object sample(Parameter p) {
    Class<?> t = p.getType();
    if (t == int.class) {
      return 1;
    } else if (t == long.class) {
      return 1L;
    } else if (t == double.class) {
      return 0.5;
    } else if (t == boolean.class) {
      return false;
    }
    Object sample = SAMPLES.get(t);
    if (sample == null) {
      throw new AssertionError("no sample value of " + t + " for " + p + ": add one to SAMPLES");
    }
    return sample;
  }

  private static Throwable invoke(Executable executable, Object instance, Object[] args) {
    try {
      if (executable instanceof Constructor<?> c) {
        c.newInstance(args);
      } else {
        Method m = (Method) executable;
        m.invoke(Modifier.isStatic(m.getModifiers()) ? null : instance, args);
      }
      return null;
    } catch (InvocationTargetException e) {
      return e.getCause();
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }
}
