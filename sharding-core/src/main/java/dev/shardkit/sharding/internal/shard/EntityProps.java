package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.gate.GatedMailbox;
import org.apache.pekko.actor.Deploy;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * What the props of an entity type's entities ({@code Entity.withEntityProps}) may choose. The rule:
 * their dispatcher and actor tags are the application's; their mailbox is not, because every
 * entity's mailbox must be the {@link GatedMailbox}, which holds the entity's messages while the
 * node's delivery gate is closed (single incarnation through a pause). The shard ({@link Shard})
 * puts the gated mailbox in front of whatever props it is given, and Pekko takes the first mailbox
 * in a props chain, so the gate holds even for props that skipped these checks; the checks are
 * there to refuse a choice that would otherwise be ignored without a word.
 *
 * <p>The props are read through Pekko's public {@code Adapter.props}, which turns typed props into
 * the classic ones the actor is created with: the mailbox and dispatcher selected anywhere in the
 * chain, the first of each kind winning, as when the entity is spawned.
 *
 * <p>Internal API: public for {@code Entity} and {@code ClusterSharding}; not for applications,
 * and it may change in any release.
 */
@InternalApi
public final class EntityProps {
  // How the classic props of typed ones say "no mailbox chosen" (Pekko's typed default, the same as
  // MailboxSelector.defaultMailbox()) and "the parent's dispatcher": learnt from Pekko, not copied.
  private static final String NO_MAILBOX_CHOSEN = classic(Props.empty()).deploy().mailbox();
  private static final String SAME_AS_PARENT = classic(DispatcherSelector.sameAsParent()).deploy().dispatcher();

  private EntityProps() {}

  /**
   * Refuses props that select a mailbox. {@code MailboxSelector.defaultMailbox()} passes: Pekko
   * cannot tell it from no choice, and it asks for what the gated mailbox also is, an unbounded
   * single-consumer queue.
   *
   * @throws IllegalArgumentException naming the type and the mailbox if {@code props} selects a
   *     mailbox
   */
  public static void requireNoMailbox(String typeName, Props props) {
    String mailbox = classic(props).deploy().mailbox();
    if (!mailbox.equals(NO_MAILBOX_CHOSEN) && !mailbox.equals(Deploy.NoMailboxGiven())) {
      throw new IllegalArgumentException("Entity.withEntityProps(" + typeName + "): the props select the mailbox ["
          + mailbox + "], but every entity's mailbox is shardkit's gated mailbox (" + GatedMailbox.CONFIG_PATH
          + "), which holds its messages while its node may have been downed, so that an entity never runs in two "
          + "places; choose a dispatcher or actor tags only (entity mailboxes are unbounded)");
    }
  }

  /**
   * @throws IllegalArgumentException naming the type and the dispatcher if {@code props} select a
   *     dispatcher that {@code system}'s configuration does not have (the entities could not be
   *     created on this node)
   */
  public static void requireDispatcherConfigured(ActorSystem<?> system, String typeName, Props props) {
    String dispatcher = classic(props).deploy().dispatcher();
    boolean chosen = !dispatcher.equals(Deploy.NoDispatcherGiven()) && !dispatcher.equals(SAME_AS_PARENT);
    if (chosen && !Adapter.toClassic(system).dispatchers().hasDispatcher(dispatcher)) {
      throw new IllegalArgumentException("Entity type [" + typeName + "]: withEntityProps selects the dispatcher ["
          + dispatcher + "], which is not configured on this node (add a dispatcher section at that path to its "
          + "configuration)");
    }
  }

  private static org.apache.pekko.actor.Props classic(Props props) {
    // The behavior is never created: classic props only describe how an actor would be.
    return Adapter.props(Behaviors::empty, props);
  }
}
