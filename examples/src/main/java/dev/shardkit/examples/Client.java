package dev.shardkit.examples;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.ShardingEnvelope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.slf4j.LoggerFactory;

/**
 * A client of the cluster of {@link Node}s, in a process of its own: it joins the cluster as a
 * member without the role {@value Account#ROLE}, starts a proxy for {@link Account}
 * ({@code ClusterSharding.startProxy}) and so hosts no account itself. For each of
 * {@code --accounts} accounts it reads the balance, deposits to it twice (once through an
 * {@code EntityRef}, once with a {@code ShardingEnvelope} sent to the proxy), reads the balance
 * again and prints both balances and the node that answered. Then it leaves the cluster.
 *
 * <pre>{@code
 * mvn -q -pl examples -am compile exec:java -Dexec.mainClass=dev.shardkit.examples.Client
 * }</pre>
 *
 * <p>Exit status 0 when every account answered and every balance grew by what was deposited, 1
 * otherwise, 2 for a malformed argument.
 */
public final class Client {
  private static final String PROGRAM = "Client";
  static final ExampleOptions.Option ACCOUNTS = new ExampleOptions.Option("--accounts", "SHARDKIT_ACCOUNTS",
      "how many accounts to send to (default 10)");
  static final ExampleOptions.Option TIMEOUT = new ExampleOptions.Option("--timeout", "SHARDKIT_TIMEOUT",
      "seconds to wait for the cluster and the answers (default 60)");
  static final List<ExampleOptions.Option> OPTIONS = List.of(ExampleOptions.PORT, ExampleOptions.HOSTNAME,
      ExampleOptions.SEED_NODES, ExampleOptions.ROLES, ExampleOptions.CONFIG, ACCOUNTS, TIMEOUT,
      ExampleOptions.HELP);

  /** What the client is unless told otherwise: any free port, and not a host of accounts. */
  private static final String CLIENT_DEFAULTS = """
      pekko.remote.artery.canonical.port = 0
      pekko.cluster.roles = ["client"]
      """;

  /** Each ask waits this long for its answer; it is repeated until the whole timeout is over. */
  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(5);

  private Client() {}

  public static void main(String[] args) throws Exception {
    ExampleOptions options;
    int accounts;
    int timeoutSeconds;
    ActorSystem<Void> system;
    try {
      options = ExampleOptions.parse(PROGRAM, OPTIONS, args, System.getenv());
      if (options.help()) {
        System.out.print(options.usage());
        return;
      }
      accounts = options.intValue(ACCOUNTS, 1, 100_000).orElse(10);
      timeoutSeconds = options.intValue(TIMEOUT, 1, 3600).orElse(60);
      var config = options.config(CLIENT_DEFAULTS);
      LoggerFactory.getLogger(Client.class);
      system = ActorSystem.create(Behaviors.empty(), ExampleOptions.SYSTEM_NAME, config);
    } catch (IllegalArgumentException e) {
      ExampleOptions.exitWithUsage(PROGRAM, OPTIONS, e.getMessage());
      return;
    }
    boolean ok;
    try {
      ok = run(system, accounts, Duration.ofSeconds(timeoutSeconds));
    } finally {
      // Leaves the cluster gracefully.
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    if (!ok) {
      System.exit(1);
    }
  }

  private static boolean run(ActorSystem<Void> system, int accounts, Duration timeout) throws Exception {
    Cluster cluster = Cluster.get(system);
    Node.print("client " + cluster.selfMember().address() + " with roles " + Node.roles(cluster.selfMember().getRoles())
        + "; joining " + system.settings().config().getStringList("pekko.cluster.seed-nodes"));
    ClusterSharding sharding = ClusterSharding.get(system);
    // Routes to the nodes with the role and hosts nothing. (Optional.empty() would take the role
    // from shardkit.sharding.role, which node.conf also sets to backend.)
    ActorRef<ShardingEnvelope<Account.Command>> proxy =
        sharding.startProxy(Account.TYPE, Optional.of(Account.ROLE));
    long deadline = System.nanoTime() + timeout.toNanos();

    // 1. Every balance before: the first answers also tell that the cluster is ready.
    List<EntityRef<Account.Command>> refs = new ArrayList<>();
    List<CompletableFuture<Account.Balance>> before = new ArrayList<>();
    for (int i = 1; i <= accounts; i++) {
      EntityRef<Account.Command> ref = sharding.entityRefFor(Account.TYPE, accountId(i));
      refs.add(ref);
      before.add(balance(ref, deadline));
    }
    CompletableFuture.allOf(before.toArray(CompletableFuture[]::new)).exceptionally(e -> null).join();

    // 2. Two deposits each: through the EntityRef, and as an envelope through the proxy region.
    for (int i = 1; i <= accounts; i++) {
      refs.get(i - 1).tell(new Account.Deposit(i));
      proxy.tell(new ShardingEnvelope<>(accountId(i), new Account.Deposit(10)));
    }

    // 3. Every balance after. The deposits went first from this thread, so they are counted.
    List<CompletableFuture<Account.Balance>> after = new ArrayList<>();
    for (EntityRef<Account.Command> ref : refs) {
      after.add(balance(ref, deadline));
    }

    boolean ok = true;
    Map<String, Integer> perNode = new TreeMap<>();
    for (int i = 1; i <= accounts; i++) {
      Account.Balance b0 = before.get(i - 1).exceptionally(e -> null).join();
      Account.Balance b1 = after.get(i - 1).exceptionally(e -> null).join();
      if (b0 == null || b1 == null) {
        Node.print(accountId(i) + ": no answer within " + timeout.toSeconds() + " s");
        ok = false;
        continue;
      }
      long deposited = i + 10;
      boolean grew = b1.balance() == b0.balance() + deposited;
      ok &= grew;
      perNode.merge(b1.node(), 1, Integer::sum);
      Node.print(accountId(i) + ": balance " + b0.balance() + " -> " + b1.balance() + " on " + b1.node()
          + (grew ? "" : "  (expected " + (b0.balance() + deposited) + ")"));
    }
    Node.print((ok ? "done: " : "FAILED: ") + accounts + " accounts, answered by " + perNode);
    return ok;
  }

  /** The account's balance, asked again after each timeout until {@code deadline}. */
  private static CompletableFuture<Account.Balance> balance(EntityRef<Account.Command> ref, long deadline) {
    return ref.<Account.Balance>ask(Account.GetBalance::new, ASK_TIMEOUT).toCompletableFuture()
        .handle((balance, error) -> {
          if (balance != null) {
            return CompletableFuture.completedFuture(balance);
          }
          if (System.nanoTime() > deadline) {
            return CompletableFuture.<Account.Balance>failedFuture(error);
          }
          // The cluster may still be forming, or the coordinator not yet known: ask again.
          return balance(ref, deadline);
        })
        .thenCompose(f -> f);
  }

  static String accountId(int i) {
    return "account-" + i;
  }
}
