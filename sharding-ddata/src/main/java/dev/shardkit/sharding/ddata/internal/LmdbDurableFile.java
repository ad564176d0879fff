package dev.shardkit.sharding.ddata.internal;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.lmdbjava.CursorIterable;
import org.lmdbjava.CursorIterable.KeyVal;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.Txn;

/**
 * A {@link DurableFile} in an LMDB environment laid out as Pekko's own LMDB durable store lays it
 * out (one database named {@code ddata}, opened without LMDB's lock file; keys as UTF-8 bytes,
 * values as given), so that a directory written by either store loads in the other. The
 * environment is opened on first use, so a node that never writes creates no files.
 */
final class LmdbDurableFile implements DurableFile {
  private static final String DATABASE = "ddata";

  private final File directory;
  private final long mapSize;
  private Env<ByteBuffer> env;
  private Dbi<ByteBuffer> db;
  private ByteBuffer keyBuffer;
  private ByteBuffer valueBuffer;

  /**
   * @throws IllegalArgumentException if {@code mapSize} is not positive
   */
  LmdbDurableFile(File directory, long mapSize) {
    if (mapSize <= 0) {
      throw new IllegalArgumentException("lmdb.map-size must be positive, was " + mapSize);
    }
    this.directory = directory;
    this.mapSize = mapSize;
  }

  /**
   * The directory of a replicator's LMDB files, as Pekko's durable store names it: {@code dir}
   * itself, or, if that ends with {@code ddata}, with {@code -<system>-<replicator>-<port>} appended.
   */
  static File directory(String dir, String systemName, String replicatorName, Supplier<Object> port) {
    if (!dir.endsWith("ddata")) {
      return new File(dir);
    }
    return new File(dir + "-" + systemName + "-" + replicatorName + "-" + port.get());
  }

  @Override
  public Map<String, byte[]> readAll() {
    Map<String, byte[]> all = new HashMap<>();
    String[] files = directory.list();
    if (files == null || files.length == 0) {
      return all;
    }
    open();
    try (Txn<ByteBuffer> txn = env.txnRead(); CursorIterable<ByteBuffer> entries = db.iterate(txn)) {
      for (KeyVal<ByteBuffer> entry : entries) {
        all.put(StandardCharsets.UTF_8.decode(entry.key()).toString(), bytes(entry.val()));
      }
    }
    return all;
  }

  @Override
  public void write(Map<String, byte[]> values) {
    open();
    try (Txn<ByteBuffer> txn = env.txnWrite()) {
      for (Map.Entry<String, byte[]> value : values.entrySet()) {
        keyBuffer.clear();
        keyBuffer.put(value.getKey().getBytes(StandardCharsets.UTF_8)).flip();
        valueBuffer(value.getValue().length).put(value.getValue()).flip();
        db.put(txn, keyBuffer, valueBuffer);
      }
      // Closing an uncommitted transaction aborts it, so a failed put writes nothing.
      txn.commit();
    }
  }

  @Override
  public void close() {
    if (env != null) {
      db.close();
      env.close();
      env = null;
    }
  }

  private void open() {
    if (env != null) {
      return;
    }
    directory.mkdirs();
    env = Env.create().setMapSize(mapSize).setMaxDbs(1).open(directory, EnvFlags.MDB_NOLOCK);
    db = env.openDbi(DATABASE, DbiFlags.MDB_CREATE);
    keyBuffer = ByteBuffer.allocateDirect(env.getMaxKeySize());
    valueBuffer = ByteBuffer.allocateDirect(100 * 1024);
  }

  private ByteBuffer valueBuffer(int size) {
    if (valueBuffer.capacity() < size) {
      valueBuffer = ByteBuffer.allocateDirect(size * 2);
    }
    valueBuffer.clear();
    return valueBuffer;
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    return bytes;
  }
}
