package dev.shardkit.sharding.internal.wire;

import dev.shardkit.sharding.Passivate;
import dev.shardkit.sharding.internal.util.ShardIds;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.CurrentRegions;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetCurrentRegions;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetRegionStats;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GracefulShutdownReq;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffMarker;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegionStats;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterProxy;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHomes;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardRefused;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardStopped;
import java.util.Collection;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The required fields of every message {@link ShardingSerializer} carries, checked in one place
 * for three users: the serializer before it writes a message and after it reads one (so neither
 * side of the wire passes on a message that a handler would fail on), and the region and
 * coordinator for what reaches them without the wire. Required are: every shard and entity id
 * (by {@link ShardIds}), the entity type name, every actor ref, and a Deliver's message. Optional
 * (no rule) are {@link ShardingProtocol.DeliveryAck}, which has no such field, and the entity id
 * of a {@code ShardingEnvelope}, which is the user's and which the type's extractor judges. Pure.
 */
final class ProtocolFields {

  private ProtocolFields() {}

  /**
   * What is wrong with {@code message}, or empty if every required field is present.
   *
   * @return e.g. {@code "ShardHome: the required field [region] is null"}
   */
  static Optional<String> problem(Object message) {
    String p = null;
    if (message instanceof Deliver m) {
      p = first(text(m.typeName(), "typeName"), id("shard id", m.shardId()), id("entity id", m.entityId()),
          present(m.message(), "message"));
    } else if (message instanceof Register m) {
      p = first(present(m.region(), "region"), ids(m.hostedShards()));
    } else if (message instanceof RegisterProxy m) {
      p = present(m.proxy(), "proxy");
    } else if (message instanceof RegisterAck m) {
      p = present(m.coordinator(), "coordinator");
    } else if (message instanceof GetShardHome m) {
      p = first(id("shard id", m.shardId()), present(m.region(), "region"));
    } else if (message instanceof ShardHome m) {
      p = first(id("shard id", m.shardId()), present(m.region(), "region"));
    } else if (message instanceof ShardHomes m) {
      p = m.homes() == null ? "the required field [homes] is null"
          : first(ids(m.homes().keySet()), elements(m.homes().values(), "homes"));
    } else if (message instanceof ShardRefused m) {
      p = first(id("shard id", m.shardId()), text(m.reason(), "reason"));
    } else if (message instanceof GetCurrentRegions m) {
      p = present(m.replyTo(), "replyTo");
    } else if (message instanceof CurrentRegions m) {
      p = elements(m.regions(), "regions");
    } else if (message instanceof GetRegionStats m) {
      p = present(m.replyTo(), "replyTo");
    } else if (message instanceof RegionStats m) {
      p = m.entityCounts() == null ? "the required field [entityCounts] is null" : ids(m.entityCounts().keySet());
    } else if (message instanceof BeginHandOff m) {
      p = first(id("shard id", m.shardId()), present(m.owner(), "owner"), elements(m.regions(), "regions"));
    } else if (message instanceof HandOffMarker m) {
      p = first(id("shard id", m.shardId()), present(m.region(), "region"));
    } else if (message instanceof ShardingProtocol.ShardStarted m) {
      p = first(id("shard id", m.shardId()), present(m.region(), "region"));
    } else if (message instanceof ShardStopped m) {
      p = first(id("shard id", m.shardId()), present(m.region(), "region"));
    } else if (message instanceof ShardingProtocol.HandOffDeclined m) {
      p = first(id("shard id", m.shardId()), present(m.region(), "region"));
    } else if (message instanceof GracefulShutdownReq m) {
      p = present(m.region(), "region");
    } else if (message instanceof DeliveryBatch m) {
      p = first(present(m.link(), "link"), elements(m.items(), "items"));
    } else if (message instanceof Passivate m) {
      p = present(m.entity(), "entity");
    }
    return p == null ? Optional.empty() : Optional.of(message.getClass().getSimpleName() + ": " + p);
  }

  private static @Nullable String first(String... problems) {
    for (String p : problems) {
      if (p != null) {
        return p;
      }
    }
    return null;
  }

  private static String id(String what, String id) {
    return ShardIds.problem(what, id).orElse(null);
  }

  private static @Nullable String ids(Collection<String> shardIds) {
    if (shardIds == null) {
      return "the required field [shard ids] is null";
    }
    for (String shardId : shardIds) {
      String p = id("shard id", shardId);
      if (p != null) {
        return p;
      }
    }
    return null;
  }

  private static String text(String value, String field) {
    return value == null || value.isEmpty() ? "the required field [" + field + "] is "
        + (value == null ? "null" : "empty") : null;
  }

  private static String present(Object value, String field) {
    return value == null ? "the required field [" + field + "] is null" : null;
  }

  private static @Nullable String elements(Collection<?> values, String field) {
    if (values == null) {
      return "the required field [" + field + "] is null";
    }
    for (Object v : values) {
      if (v == null) {
        return "the required field [" + field + "] holds a null element";
      }
    }
    return null;
  }
}
