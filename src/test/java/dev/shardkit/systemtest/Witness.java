package dev.shardkit.systemtest;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A node process's part of the external witness: it appends, with {@link System#nanoTime()}, each
 * incarnation's start, every message an incarnation processes, every message this node's sender
 * sends, and the cluster events the node sees, to a file of its own that the test reads afterwards
 * ({@link WitnessLog}). On Linux {@code System.nanoTime()} reads CLOCK_MONOTONIC, one clock for
 * every process of the host, so the records of all nodes can be put on one time line; a frozen
 * process's clock keeps running, so what it does after it is thawed is stamped after the thaw.
 *
 * <p>Records are buffered and flushed every {@value #FLUSH_MS} ms and on {@link #flush}; a node
 * that is killed loses at most its last moments, which only ever hides activity, never invents it.
 */
final class Witness {
  static final byte STARTED = 1;
  static final byte PROCESSED = 2;
  static final byte SENT = 3;
  /** A cluster event about another node: {@code entity} holds the event kind, {@code seq} the node's port. */
  static final byte SAW = 4;

  static final int SAW_UNREACHABLE = 1;
  static final int SAW_REACHABLE = 2;
  static final int SAW_REMOVED = 3;
  static final int SAW_DOWNED = 4;

  private static final int FLUSH_MS = 100;

  private final DataOutputStream out;
  private final AtomicInteger incarnations = new AtomicInteger();
  private final AtomicLong processed = new AtomicLong();

  private Witness(DataOutputStream out) {
    this.out = out;
  }

  /** Creates (or truncates) {@code file} and starts flushing it regularly. */
  static Witness open(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Witness witness = new Witness(new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)));
    Thread flusher = new Thread(() -> {
      while (true) {
        try {
          Thread.sleep(FLUSH_MS);
        } catch (InterruptedException e) {
          return;
        }
        witness.flush();
      }
    }, "witness-flusher");
    flusher.setDaemon(true);
    flusher.start();
    return witness;
  }

  /** Records a new incarnation of {@code entity} and returns its number on this node. */
  int started(int entity) {
    int incarnation = incarnations.incrementAndGet();
    write(STARTED, entity, incarnation, 0, 0);
    return incarnation;
  }

  void processed(int entity, int incarnation, int sender, int seq) {
    processed.incrementAndGet();
    write(PROCESSED, entity, incarnation, sender, seq);
  }

  void sent(int entity, int seq) {
    write(SENT, entity, 0, 0, seq);
  }

  void saw(int event, int port) {
    write(SAW, event, 0, 0, port);
  }

  /** Messages processed by this node's incarnations so far. */
  long processedCount() {
    return processed.get();
  }

  private synchronized void write(byte kind, int entity, int incarnation, int sender, int seq) {
    try {
      out.writeByte(kind);
      out.writeLong(System.nanoTime());
      out.writeInt(entity);
      out.writeInt(incarnation);
      out.writeInt(sender);
      out.writeInt(seq);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  synchronized void flush() {
    try {
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
