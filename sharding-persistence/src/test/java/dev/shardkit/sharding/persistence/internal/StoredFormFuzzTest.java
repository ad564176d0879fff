package dev.shardkit.sharding.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.util.ShardIds;
import dev.shardkit.sharding.testsupport.persistence.StoreTestSupport;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.testsupport.SerializerFuzz;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Whatever the journal holds in the coordinator's stored forms (fields missing, empty, garbage, or
 * of a kind that does not fit), reading it gives events and states whose shard ids are valid and
 * whose refs are there, skips an entry with an invalid shard id, or fails with an
 * {@link IllegalStateException} that says what is wrong: never another exception. (The bytes of
 * these records are Jackson JSON, read by Pekko's Jackson serializer before shardkit sees them.)
 * Seeded and reproducible, as {@link SerializerFuzz}.
 */
class StoredFormFuzzTest {
  private static ActorSystem<Void> system;
  private static String region;

  @BeforeAll
  static void start() {
    system = StoreTestSupport.system("StoredFormFuzz", "");
    region = ActorRefResolver.get(system).toSerializationFormat(
        system.systemActorOf(Behaviors.empty(), "region", org.apache.pekko.actor.typed.Props.empty()));
  }

  @AfterAll
  static void stop() {
    StoreTestSupport.terminate(system);
  }

  private static String pick(SplittableRandom random, String... values) {
    return values[random.nextInt(values.length)];
  }

  private static String ref(SplittableRandom random) {
    return pick(random, null, "", region, region, "pekko://Nowhere@10.0.0.9:1/x#1", "not a ref", "pekko://\uD800");
  }

  private static String shard(SplittableRandom random) {
    return pick(random, null, "", "1", "7", "ü", "\uD800");
  }

  private static boolean valid(CoordinatorEvent event) {
    if (event instanceof ShardHomeAllocated a) {
      return ShardIds.isValid(a.shardId()) && a.region() != null;
    } else if (event instanceof ShardHomeDeallocated d) {
      return ShardIds.isValid(d.shardId());
    }
    return true;
  }

  @Test
  void storedFormsReadAsValidEventsAndStatesOrFailWithAClearError() {
    long seed = SerializerFuzz.seed("StoredFormFuzzTest");
    SplittableRandom random = new SplittableRandom(seed);
    StoredForm form = new StoredForm(system);
    StoredEvent.Kind[] kinds = StoredEvent.Kind.values();
    List<String> failures = new ArrayList<>();
    int refused = 0;
    for (int i = 0; i < 20_000; i++) {
      try {
        if (random.nextBoolean()) {
          StoredEvent stored = new StoredEvent(random.nextInt(8) == 0 ? null : kinds[random.nextInt(kinds.length)],
              ref(random), shard(random));
          for (CoordinatorEvent event : scala.jdk.javaapi.CollectionConverters.asJava(
              form.eventAdapter().fromJournal(stored, "").events())) {
            if (!valid(event)) {
              failures.add("seed " + seed + ", input " + i + ": read " + event + " from " + stored);
            }
          }
        } else {
          List<StoredSnapshot.Region> regions = new ArrayList<>();
          for (int r = random.nextInt(3); r > 0; r--) {
            regions.add(new StoredSnapshot.Region(ref(random), random.nextInt(8) == 0 ? null
                : Arrays.asList(shard(random), shard(random))));
          }
          List<String> proxies = random.nextInt(4) == 0 ? Arrays.asList(ref(random)) : List.of();
          CoordinatorState state = form.fromStored(new StoredSnapshot(regions, proxies));
          if (!state.shards().keySet().stream().allMatch(ShardIds::isValid)) {
            failures.add("seed " + seed + ", input " + i + ": a state with an invalid shard id from " + regions);
          }
        }
      } catch (IllegalStateException e) {
        refused++;
        if (e.getMessage() == null || e.getMessage().isEmpty()) {
          failures.add("seed " + seed + ", input " + i + ": an IllegalStateException without a message");
        }
      } catch (RuntimeException e) {
        failures.add("seed " + seed + ", input " + i + ": " + e);
      }
    }
    assertTrue(failures.isEmpty(), failures.size() + " input(s), e.g. " + failures.subList(0, Math.min(5,
        failures.size())));
    assertTrue(refused > 1000, "refused " + refused);
  }
}
