package dev.shardkit.sharding.testkit;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.pekko.coordination.lease.LeaseSettings;
import org.apache.pekko.coordination.lease.javadsl.Lease;

/**
 * A Pekko coordination lease held in this JVM, which a test grants, refuses and takes away through
 * its {@link TestLeaseControl}: for testing what a lease-holding component (such as the
 * coordinator with {@code shardkit.sharding.coordinator-lease}) does when it cannot get the lease
 * or loses it. Every node of a {@link TestCluster} runs in one JVM, so they all share the lease of
 * one name, as they would share a real lease resource.
 *
 * <p>Configure it with {@link #CONFIG} (a lease section at {@link #CONFIG_PATH}) and name that path
 * where a lease is expected. Answers come at once; {@link #acquire} never fails, it only says no.
 */
public final class TestLease extends Lease {

  /** Where {@link #CONFIG} puts the lease's section. */
  public static final String CONFIG_PATH = "shardkit-test-lease";

  /** The lease's configuration section, to add to a test's configuration. */
  public static final String CONFIG = CONFIG_PATH + ".lease-class = \"" + TestLease.class.getName() + "\"\n";

  private static final Map<String, TestLeaseControl> LEASES = new ConcurrentHashMap<>();

  private final LeaseSettings settings;
  private final TestLeaseControl control;

  /** Called by Pekko's {@code LeaseProvider}, once per lease name and owner. */
  public TestLease(LeaseSettings settings) {
    this.settings = settings;
    this.control = LEASES.computeIfAbsent(settings.leaseName(), TestLeaseControl::new);
  }

  /**
   * The control of the lease whose name contains {@code namePart}, once some node asked for it.
   *
   * @throws IllegalStateException unless exactly one lease created so far matches
   */
  public static TestLeaseControl control(String namePart) {
    var matching = LEASES.values().stream().filter(c -> c.name().contains(namePart)).toList();
    if (matching.size() != 1) {
      throw new IllegalStateException("Expected one test lease named like [" + namePart + "], found "
          + matching.stream().map(TestLeaseControl::name).toList());
    }
    return matching.get(0);
  }

  /** Whether a lease whose name contains {@code namePart} was asked for. */
  public static boolean exists(String namePart) {
    return LEASES.keySet().stream().anyMatch(name -> name.contains(namePart));
  }

  @Override
  public LeaseSettings getSettings() {
    return settings;
  }

  @Override
  public CompletionStage<Boolean> acquire() {
    return acquire(lost -> { });
  }

  @Override
  public CompletionStage<Boolean> acquire(Consumer<Optional<Throwable>> leaseLostCallback) {
    return CompletableFuture.completedFuture(control.acquire(settings.ownerName(), leaseLostCallback));
  }

  @Override
  public CompletionStage<Boolean> release() {
    return CompletableFuture.completedFuture(control.release(settings.ownerName()));
  }

  @Override
  public boolean checkLease() {
    return control.holds(settings.ownerName());
  }
}
