package dev.shardkit.sharding.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.internal.gate.GateProtocol.ConfirmMember;
import dev.shardkit.sharding.internal.gate.GateProtocol.MemberConfirmed;
import java.io.NotSerializableException;
import java.util.Arrays;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class GateSerializerTest {
  private static ActorTestKit testKit;
  private static Serialization serialization;
  private static ActorRef<Object> ref;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create(ConfigFactory.parseString("""
        pekko.actor.provider = cluster
        pekko.remote.artery.canonical { hostname = 127.0.0.1, port = 0 }
        """));
    serialization = SerializationExtension.get(Adapter.toClassic(testKit.system()));
    ref = testKit.createTestProbe(Object.class).ref();
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static Object roundTrip(Object message) throws Exception {
    var serializer = serialization.findSerializerFor(message);
    assertInstanceOf(GateSerializer.class, serializer, "bound by reference.conf");
    assertEquals(7243, serializer.identifier());
    byte[] bytes = serializer.toBinary(message);
    return serialization.deserialize(bytes, serializer.identifier(), Serializers.manifestFor(serializer, message))
        .get();
  }

  @Test
  void bothMessagesComeBackUnchanged() throws Exception {
    ConfirmMember question = new ConfirmMember(42, -7_000_000_000L, ref);
    assertEquals(question, roundTrip(question));
    MemberConfirmed answer = new MemberConfirmed(Long.MAX_VALUE, ref, true);
    assertEquals(answer, roundTrip(answer));
    assertEquals(new MemberConfirmed(1, ref, false), roundTrip(new MemberConfirmed(1, ref, false)));
  }

  @Test
  void badInputIsRefusedWithNotSerializableException() {
    GateSerializer serializer = (GateSerializer) serialization.serializerByIdentity().apply(7243);
    assertThrows(NotSerializableException.class, () -> serializer.fromBinary(new byte[] {1}, "ZZ"));
    byte[] bytes = serializer.toBinary(new ConfirmMember(1, 2, ref));
    assertThrows(NotSerializableException.class,
        () -> serializer.fromBinary(Arrays.copyOf(bytes, bytes.length - 3), GateSerializer.CONFIRM));
  }
}
