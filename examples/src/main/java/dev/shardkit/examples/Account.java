package dev.shardkit.examples;

import dev.shardkit.sharding.EntityContext;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.Passivate;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The sharded entity of the {@link Node} and {@link Client} examples: an account with a balance,
 * one per account id, created by its first message on whichever node hosts its shard.
 *
 * <p>It shows what a real entity type usually needs besides its own messages: a reply that says
 * which node answered, a stop message (used when its shard is handed off to another node and when
 * it passivates), and passivation requested by the entity itself after it has been idle for
 * {@link #IDLE_AFTER}.
 *
 * <p>The balance lives in the entity's memory only, to keep the example short: an account that
 * passivates, or whose shard moves to another node, starts again from 0. A real account would
 * keep its balance in Pekko Persistence ({@code EventSourcedBehavior}) or a database of its own.
 */
public final class Account {
  private Account() {}

  /** The entity type: the same name and message class on every node. */
  public static final EntityTypeKey<Command> TYPE = EntityTypeKey.create(Command.class, "Account");

  /** The cluster role of the nodes that host accounts. */
  public static final String ROLE = "backend";

  /** An account that has received nothing for this long asks its shard to passivate it. */
  public static final Duration IDLE_AFTER = Duration.ofMinutes(2);

  /** Everything an account accepts. */
  public sealed interface Command extends CborSerializable permits Deposit, GetBalance, Stop, Idle {}

  /** Adds {@code amount} to the balance. */
  public record Deposit(long amount) implements Command {}

  /** Replies with the current {@link Balance}. */
  public record GetBalance(ActorRef<Balance> replyTo) implements Command {}

  /** The reply to {@link GetBalance}: the account, its balance and the address of the node it lives on. */
  public record Balance(String accountId, long balance, String node) implements CborSerializable {}

  /**
   * The stop message ({@code Entity.withStopMessage(Account.Stop.INSTANCE)}): the shard sends it
   * when the account passivates or its shard is handed off, after every message sent before it.
   */
  public enum Stop implements Command { INSTANCE }

  /** Sent by the account to itself when it has been idle for {@link #IDLE_AFTER}. */
  enum Idle implements Command { INSTANCE }

  /** An account with balance 0, started by its shard with its id. */
  public static Behavior<Command> create(EntityContext<Command> entity) {
    return Behaviors.setup(ctx -> {
      ctx.setReceiveTimeout(IDLE_AFTER, Idle.INSTANCE);
      Node.print(entity.entityId() + " started here");
      return running(entity, ctx, 0);
    });
  }

  private static Behavior<Command> running(EntityContext<Command> entity, ActorContext<Command> ctx, long balance) {
    return Behaviors.receive(Command.class)
        .onMessage(Deposit.class, d -> running(entity, ctx, balance + d.amount()))
        .onMessage(GetBalance.class, get -> {
          get.replyTo().tell(new Balance(entity.entityId(), balance,
              ctx.getSystem().address().toString()));
          return Behaviors.same();
        })
        .onMessageEquals(Idle.INSTANCE, () -> {
          // The shard stops delivering to this account, holds what arrives meanwhile, and sends
          // Stop; a message held meanwhile starts a new incarnation.
          entity.shard().tell(new Passivate(ctx.getSelf()));
          return Behaviors.same();
        })
        .onMessageEquals(Stop.INSTANCE, () -> {
          Node.print(entity.entityId() + " stopped here (balance " + balance + ")");
          return Behaviors.stopped();
        })
        .build();
  }
}
