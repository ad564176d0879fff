package dev.shardkit.sharding.internal;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.Validate;

/**
 * A hand-written scenario for a Lincheck test class, from Java: the races a test must always
 * explore, whatever the random scenarios happen to draw. Operations are named like
 * {@code "send:1"} (method {@code send} with the int argument 1) or {@code "close"}.
 */
public final class LincheckScenario {
  private final Class<?> testClass;
  private final List<Actor> initial = new ArrayList<>();
  private final List<List<Actor>> parallel = new ArrayList<>();

  private LincheckScenario(Class<?> testClass) {
    this.testClass = testClass;
  }

  /**
   * How many times the CI's share of scenarios and interleavings a run explores: 1 unless
   * {@code -Dlincheck.scale} says more (a longer run outside CI).
   */
  public static int scale() {
    return Math.max(1, Integer.getInteger("lincheck.scale", 1));
  }

  public static LincheckScenario of(Class<?> testClass) {
    return new LincheckScenario(testClass);
  }

  /** Operations run one after the other before the threads start. */
  public LincheckScenario initially(String... operations) {
    Arrays.stream(operations).map(this::actor).forEach(initial::add);
    return this;
  }

  /** One more thread of the parallel part, running these operations in order. */
  public LincheckScenario thread(String... operations) {
    parallel.add(Arrays.stream(operations).map(this::actor).toList());
    return this;
  }

  public ExecutionScenario build() {
    Method validate = Arrays.stream(testClass.getMethods()).filter(m -> m.isAnnotationPresent(Validate.class))
        .findFirst().orElse(null);
    Actor validation = validate == null ? null : new Actor(validate, List.of());
    return new ExecutionScenario(initial, parallel, List.of(), validation);
  }

  private Actor actor(String operation) {
    String[] nameAndArg = operation.split(":");
    for (Method m : testClass.getMethods()) {
      if (m.getName().equals(nameAndArg[0]) && m.getParameterCount() == nameAndArg.length - 1) {
        List<Object> args = nameAndArg.length == 1 ? List.of() : List.of(Integer.parseInt(nameAndArg[1]));
        return new Actor(m, args);
      }
    }
    throw new IllegalArgumentException("no operation " + operation + " in " + testClass.getName());
  }
}
