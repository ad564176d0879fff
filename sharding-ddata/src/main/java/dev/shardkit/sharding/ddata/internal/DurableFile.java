package dev.shardkit.sharding.ddata.internal;

import java.util.Map;

/**
 * Where a {@link GroupCommitDurableStore} keeps the replicator's durable values: each key's
 * serialized envelope. A write returns only once its values are on disk, all of them or none.
 */
public interface DurableFile extends AutoCloseable {
  /**
   * Every key with its value as last written; empty if nothing was ever written.
   *
   * @throws RuntimeException if the file cannot be read
   */
  Map<String, byte[]> readAll();

  /**
   * Writes every value in one transaction, on disk when this returns.
   *
   * @throws RuntimeException if the transaction failed; then none of the values is written
   */
  void write(Map<String, byte[]> values);

  /** Releases the file; later calls are not allowed. */
  @Override
  void close();
}
