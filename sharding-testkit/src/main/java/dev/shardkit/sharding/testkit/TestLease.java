package dev.shardkit.sharding.testkit;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.coordination.lease.LeaseSettings;
import org.apache.pekko.coordination.lease.javadsl.Lease;

/**
 * A Pekko coordination lease held in the memory of a {@link TestCluster}, which a test grants,
 * refuses and takes away through its {@link TestLeaseControl} ({@link TestCluster#lease}): for
 * testing what a lease-holding component (such as the coordinator with
 * {@code shardkit.sharding.coordinator-lease}) does when it cannot get the lease or loses it. The
 * nodes of one {@code TestCluster} share the lease of one name, as they would share a real lease
 * resource; another cluster, in a test running in parallel, has leases of its own.
 *
 * <p>Configure it with {@link #CONFIG} (a lease section at {@link #CONFIG_PATH}) and name that path
 * where a lease is expected. Answers come at once; {@link #acquire} never fails, it only says no.
 */
public final class TestLease extends Lease {

  /** Where {@link #CONFIG} puts the lease's section. */
  public static final String CONFIG_PATH = "shardkit-test-lease";

  /** The lease's configuration section, to add to a test's configuration. */
  public static final String CONFIG = CONFIG_PATH + ".lease-class = \"" + TestLease.class.getName() + "\"\n";

  private final LeaseSettings settings;
  private final TestLeaseControl control;

  /**
   * Called by Pekko's {@code LeaseProvider}, once per lease name and owner.
   *
   * @throws IllegalStateException if the system was not started by a TestCluster or ShardingTestKit
   */
  public TestLease(LeaseSettings settings, ExtendedActorSystem system) {
    this.settings = settings;
    this.control = TestScope.of(system.settings().config(), "TestLease").lease(settings.leaseName());
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
