package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.List;
import org.apache.pekko.actor.typed.ActorTags;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.MailboxSelector;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/** {@link Entity#withEntityProps}: a dispatcher and tags are the application's, a mailbox is not. */
class EntityTest {
  static final EntityTypeKey<String> KEY = EntityTypeKey.create(String.class, "Props");
  static final ShardingSettings SETTINGS =
      ShardingSettings.fromConfig(ConfigFactory.defaultReference().getConfig("shardkit.sharding"));

  static Entity<String, ShardingEnvelope<String>> entity() {
    return Entity.of(KEY, ctx -> Behaviors.empty());
  }

  @Test
  void dispatchersAndTagsAreKeptAndTheOtherSettingsWithThem() {
    assertEquals(Props.empty(), entity().entityProps());
    for (Props props : List.of(
        DispatcherSelector.fromConfig("my-dispatcher"),
        DispatcherSelector.blocking(),
        DispatcherSelector.sameAsParent(),
        DispatcherSelector.defaultDispatcher(),
        // Pekko cannot tell it from no choice; the gated mailbox is also unbounded and single-consumer.
        MailboxSelector.defaultMailbox(),
        ActorTags.create("billing"),
        ActorTags.create("billing").withDispatcherFromConfig("my-dispatcher"),
        Props.empty())) {
      Entity<String, ShardingEnvelope<String>> withProps = entity().withRole("backend").withEntityProps(props);
      assertSame(props, withProps.entityProps());
      assertEquals("backend", withProps.role().orElseThrow());
      assertSame(props, withProps.withStopMessage("stop").withSettings(SETTINGS).entityProps(),
          "later with… calls keep the props");
    }
  }

  @Test
  void aMailboxAnywhereInThePropsIsRefusedNamingIt() {
    record Refused(Props props, String mailbox) {}
    for (Refused r : List.of(
        new Refused(MailboxSelector.bounded(100), "bounded-capacity:100"),
        new Refused(MailboxSelector.fromConfig("my-mailbox"), "my-mailbox"),
        new Refused(DispatcherSelector.fromConfig("my-dispatcher").withMailboxFromConfig("my-mailbox"), "my-mailbox"),
        // Behind another selector, where a check of the props' head alone would miss it.
        new Refused(MailboxSelector.bounded(5).withDispatcherFromConfig("my-dispatcher"), "bounded-capacity:5"),
        new Refused(ActorTags.create("t").withDispatcherDefault().withMailboxFromConfig("m"), "m"))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> entity().withEntityProps(r.props()), r.toString());
      assertTrue(e.getMessage().startsWith("Entity.withEntityProps(Props): the props select the mailbox ["
          + r.mailbox() + "]"), e.getMessage());
      assertTrue(e.getMessage().contains("shardkit.sharding.entity-mailbox"), e.getMessage());
    }
  }

  @Test
  void nullPropsAreRefusedNamingTheMethod() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> entity().withEntityProps(null));
    assertTrue(e.getMessage().startsWith("Entity.withEntityProps(Props): props must not be null"), e.getMessage());
  }
}
