package dev.shardkit.sharding.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.RemoteDeliverySettings;
import dev.shardkit.sharding.internal.delivery.DeliveryLink;
import dev.shardkit.sharding.internal.delivery.Outbox;
import dev.shardkit.sharding.internal.machine.DropReporter;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffMarker;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.UndeliverableItem;
import java.io.NotSerializableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Compact delivery items ({@link DeliveryBatchWriter}, {@link ShardingSerializer}'s tag
 * {@code 'd'}): they read back as the messages they came from while leaving out what they share
 * with the item before them; what they share is never taken from an item that is not in the batch
 * or could not be read; and a link writes them only to a receiver that said it reads them.
 */
class CompactDeliveryItemsTest {
  private static ActorTestKit testKit;
  private static ShardingSerializer serializer;
  private static ActorRef<Object> link;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create("CompactDeliveryItemsTest", ConfigFactory.parseString(String.join("\n",
        "pekko.actor.provider = cluster",
        "pekko.remote.artery.canonical.port = 0",
        "pekko.remote.artery.canonical.hostname = 127.0.0.1")));
    serializer = (ShardingSerializer) SerializationExtension.get(testKit.system().classicSystem())
        .findSerializerFor(new DeliveryAck(0, false));
    link = testKit.<Object>createTestProbe().getRef();
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static DeliveryBatch read(byte[] bytes) throws NotSerializableException {
    return (DeliveryBatch) serializer.fromBinary(bytes, ShardingSerializer.DELIVERY_BATCH + ShardingSerializer.FORMAT);
  }

  private static byte[] written(List<EncodedItem> items) {
    return serializer.toBinary(new DeliveryBatch(link, 1, new ArrayList<>(items)));
  }

  private static List<EncodedItem> writeAll(boolean compact, List<Object> messages) {
    DeliveryBatchWriter writer = new DeliveryBatchWriter(serializer, compact, 16);
    return messages.stream().map(writer::write).toList();
  }

  @Test
  void compactItemsReadBackAsTheirMessagesAndLeaveOutWhatTheyShare() throws Exception {
    ActorRef<Object> region = testKit.<Object>createTestProbe().getRef();
    List<Object> messages = List.of(
        new Deliver("Counter", "1", "a", "one"),
        new Deliver("Counter", "2", "b", "two"),
        new HandOffMarker("2", region, 5),
        new Deliver("Counter", "3", "c", 3),
        new Deliver("Other", "4", "d", 4),
        new Deliver("Other", "4", "e", "five"));
    List<EncodedItem> compact = writeAll(true, messages);
    List<EncodedItem> full = writeAll(false, messages);

    assertEquals(messages, read(written(compact)).items());
    assertEquals(messages, read(written(full)).items());
    // The second shares type, serializer and manifest with the first; a marker in between
    // changes nothing; the fourth shares only the type, the fifth only serializer and manifest,
    // the sixth only the type.
    assertEquals(List.of(0b11, 0b00, 0b10, 0b01, 0b10), compact.stream()
        .filter(i -> i.kind() == ShardingSerializer.ITEM_DELIVER_COMPACT)
        .map(i -> (int) i.buffer()[i.offset()]).toList());
    assertTrue(compact.get(1).length() < full.get(1).length() - "Counter".length(),
        compact.get(1).length() + " bytes compact, " + full.get(1).length() + " in full");
  }

  @Test
  void anItemTakenBackLeavesNothingForTheNextToShare() throws Exception {
    DeliveryBatchWriter writer = new DeliveryBatchWriter(serializer, true, 16);
    Deliver first = new Deliver("Counter", "1", "a", "one");
    Deliver undone = new Deliver("Other", "2", "b", 2);
    Deliver next = new Deliver("Other", "3", "c", 3);
    EncodedItem a = writer.write(first);
    writer.undo(writer.write(undone));
    EncodedItem c = writer.write(next);
    // Had the item taken back left its type and serializer to share, the last one would read as
    // a "Counter" message with a String serializer.
    assertEquals(List.of(first, next), read(written(List.of(a, c))).items());
  }

  @Test
  void aCompactItemSharingWithAnItemThatCouldNotBeReadIsUndeliverableNotMisread() throws Exception {
    Deliver good = new Deliver("Counter", "1", "a", "one");
    EncodedItem first = writeAll(true, List.of(good)).get(0);
    BinaryWriter w = new BinaryWriter(256);
    w.writeString(ActorRefResolver.get(testKit.system()).toSerializationFormat(link));
    w.writeVarULong(1);
    w.writeVarUInt(4);
    w.writeByte(first.kind());
    w.writeBytes(first.buffer(), first.offset(), first.length());
    // Says it has its own type name, which is empty: unreadable.
    w.writeByte(ShardingSerializer.ITEM_DELIVER_COMPACT);
    int section = w.beginSection();
    w.writeByte((byte) ShardingSerializer.COMPACT_TYPE_NAME);
    w.writeString("");
    w.writeString("2");
    w.writeString("b");
    w.writeBytes(new byte[] {1});
    w.endSection(section);
    // Shares the type name of the one before, which had none that could be read.
    w.writeByte(ShardingSerializer.ITEM_DELIVER_COMPACT);
    section = w.beginSection();
    w.writeByte((byte) 0);
    w.writeString("3");
    w.writeString("c");
    w.writeBytes(new byte[] {1});
    w.endSection(section);
    // Flags this version does not define.
    w.writeByte(ShardingSerializer.ITEM_DELIVER_COMPACT);
    section = w.beginSection();
    w.writeByte((byte) 0x40);
    w.endSection(section);

    List<Object> items = read(w.toByteArray()).items();
    assertEquals(good, items.get(0));
    assertTrue(assertInstanceOf(UndeliverableItem.class, items.get(1)).reason().contains("typeName"), items.get(1)
        .toString());
    UndeliverableItem sharing = assertInstanceOf(UndeliverableItem.class, items.get(2));
    assertEquals("c", sharing.entityId());
    assertTrue(sharing.reason().contains("type name of an earlier item"), sharing.reason());
    assertTrue(assertInstanceOf(UndeliverableItem.class, items.get(3)).reason().contains("0x40"),
        items.get(3).toString());
  }

  /** The kinds of the items of the next batch the link sends to {@code destination}. */
  private static List<Byte> kindsOfNextBatch(TestProbe<Object> destination) {
    DeliveryBatch batch = destination.expectMessageClass(DeliveryBatch.class);
    return batch.items().stream().map(i -> ((EncodedItem) i).kind()).toList();
  }

  @Test
  void aLinkSendsCompactItemsOnlyOnceItsReceiverSaidItReadsThem() {
    for (boolean receiverReadsThem : new boolean[] {true, false}) {
      TestProbe<Object> destination = testKit.createTestProbe();
      Outbox outbox = new Outbox(destination.getRef(), 100);
      DropReporter drops = new DropReporter(LoggerFactory.getLogger(getClass()), "Counter", Duration.ofMinutes(1),
          dropped -> { });
      RemoteDeliverySettings settings = new RemoteDeliverySettings(10, 64 * 1024, 1, Duration.ofMinutes(1), false);
      ActorRef<Object> sender = testKit.spawn(DeliveryLink.create(outbox, settings, serializer, drops, 256 * 1024));
      outbox.attach(sender);

      outbox.offer(new Deliver("Counter", "1", "a", "one"));
      assertEquals(List.of(ShardingSerializer.ITEM_DELIVER), kindsOfNextBatch(destination));
      // A window of one: the next batch waits for this acknowledgement, which says what the
      // receiver reads.
      outbox.offer(new Deliver("Counter", "1", "a", "two"));
      outbox.offer(new Deliver("Counter", "1", "a", "three"));
      sender.tell(new DeliveryAck(1, false, receiverReadsThem));
      byte kind = receiverReadsThem ? ShardingSerializer.ITEM_DELIVER_COMPACT : ShardingSerializer.ITEM_DELIVER;
      assertEquals(List.of(kind, kind), kindsOfNextBatch(destination), "receiver reads them: " + receiverReadsThem);
      testKit.stop(sender);
    }
  }
}
