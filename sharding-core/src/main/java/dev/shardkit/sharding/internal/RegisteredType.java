package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.MessageExtractor;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * An entity type started on this node: its key, its region (through the handle), the extractor
 * entity refs use, and the coordinator singleton's proxy.
 */
public record RegisteredType(
    EntityTypeKey<?> typeKey,
    RegionHandle handle,
    MessageExtractor<Object, Object> extractor,
    ActorRef<Object> coordinator) {}
