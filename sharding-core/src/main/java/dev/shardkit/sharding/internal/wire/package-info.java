/**
 * What crosses nodes: the messages of {@link ShardingProtocol}, and the versioned binary formats of
 * {@link ShardingSerializer} and {@link GateSerializer} (over {@link ShardkitSerializer},
 * {@link BinaryReader}, {@link BinaryWriter} and {@link WireManifest}). A delivery batch is written
 * by {@link DeliveryBatchWriter} from the items its link encoded ({@link ItemEncoder},
 * {@link EncodedItem}); many shard homes are split into messages that each fit one remote frame
 * ({@link ShardHomesChunks}). {@link ProtocolFields} and {@link InvalidMessageFilter} keep a
 * message that lacks a required field away from the machines.
 */
package dev.shardkit.sharding.internal.wire;
