package dev.shardkit.sharding.testkit.examples;

import dev.shardkit.sharding.EntityRef;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Code under test that sends to entities: it counts votes with one Counter per option. It takes
 * its EntityRefs from a function; in production that is
 * {@code id -> sharding.entityRefFor(Counter.KEY, id)}.
 */
public final class Votes {
  private final Function<String, EntityRef<Counter.Command>> counters;

  public Votes(Function<String, EntityRef<Counter.Command>> counters) {
    this.counters = counters;
  }

  public void vote(String option) {
    counters.apply("votes-" + option).tell(new Counter.Increment(1));
  }

  public CompletionStage<Integer> count(String option) {
    return counters.apply("votes-" + option).ask(Counter.Get::new, Duration.ofSeconds(3));
  }
}
