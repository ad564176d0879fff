package dev.shardkit.sharding.ddata.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The JVM options lmdbjava needs on Java 9 and later, where LMDB keeps remembered entities: it
 * reads the address of direct buffers through {@code java.nio} internals and
 * {@code sun.nio.ch.DirectBuffer}. Without them its first use throws an {@link Error}, on which
 * Pekko (with its default {@code pekko.jvm-exit-on-fatal-error = on}) exits the JVM; so shardkit
 * checks before it starts LMDB, and fails with the options to add instead.
 */
public final class LmdbJvmOptions {
  /** The durable store class that uses lmdbjava; the default of Pekko's replicator. */
  public static final String LMDB_STORE_CLASS = "org.apache.pekko.cluster.ddata.LmdbDurableStore";

  /** shardkit's durable store, which commits in groups and also uses lmdbjava. */
  public static final String GROUP_COMMIT_STORE_CLASS = GroupCommitDurableStore.class.getName();

  private LmdbJvmOptions() {}

  /** Whether a durable store class is one of those that use lmdbjava. */
  public static boolean usesLmdb(String storeClass) {
    return storeClass.equals(LMDB_STORE_CLASS) || storeClass.equals(GROUP_COMMIT_STORE_CLASS);
  }

  /**
   * The options this JVM lacks for code in {@code lmdbjava}'s module (the unnamed module when it
   * is on the class path), as they are written on the command line; empty if none.
   */
  public static List<String> missing(Module lmdbjava) {
    Module base = Object.class.getModule();
    String target = lmdbjava.isNamed() ? lmdbjava.getName() : "ALL-UNNAMED";
    List<String> missing = new ArrayList<>();
    if (!base.isOpen("java.nio", lmdbjava)) {
      missing.add("--add-opens java.base/java.nio=" + target);
    }
    // Exported is enough here; --add-opens, which lmdbjava documents, exports too.
    if (!base.isExported("sun.nio.ch", lmdbjava)) {
      missing.add("--add-opens java.base/sun.nio.ch=" + target);
    }
    return missing;
  }

  /**
   * @throws IllegalStateException naming the missing options, if this JVM lacks any for lmdbjava
   */
  public static void require(String what) {
    List<String> missing = missing(org.lmdbjava.Env.class.getModule());
    if (!missing.isEmpty()) {
      throw new IllegalStateException("shardkit keeps " + what + " on disk in LMDB, through lmdbjava, which needs "
          + "the JVM option(s) " + String.join(" ", missing) + " on Java 9 and later; without them the JVM would "
          + "exit when LMDB opens. Start the JVM with them (e.g. in JDK_JAVA_OPTIONS, or surefire's argLine in "
          + "tests), or use shardkit.sharding.remember-entities-store = persistence");
    }
  }
}
