package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.persistence.internal.StoredEvent.Kind;
import dev.shardkit.sharding.testsupport.persistence.StoreTestSupport;
import dev.shardkit.sharding.testsupport.GoldenFiles;
import dev.shardkit.sharding.testsupport.GoldenFiles.Sample;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Golden samples of what the persistence stores write to the journal and the snapshot store:
 * every kind of coordinator event, a batch of them, a coordinator snapshot, and the
 * remembered-entities event and snapshot, as Pekko's {@code jackson-json} serializer writes them (JSON, with the schema version
 * {@link StoredRecordVersion#CURRENT} in the manifest), under
 * {@code golden/persistence/v<schema version>/}. {@link PersistenceGoldenTest} reads every version
 * back; {@link #main} writes the current version's directory (see {@link GoldenFiles}):
 *
 * <pre>
 * mvn -q -pl sharding-persistence test-compile exec:java -Dexec.skip=false -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.shardkit.sharding.persistence.internal.PersistenceGolden \
 *     -Dexec.args=sharding-persistence/src/test/resources/golden
 * </pre>
 *
 * <p>References are of nodes that do not exist ({@code 10.0.0.x}), so they resolve to remote refs
 * that keep their path, whatever the address of the system that reads them.
 */
public final class PersistenceGolden {
  static final String SYSTEM = "Golden";
  static final String FORMAT = "persistence";
  static final String R1 = "pekko://Golden@10.0.0.1:25520/system/sharding/Cart#101";
  static final String R2 = "pekko://Golden@10.0.0.2:25520/system/sharding/Cart#202";
  static final String P1 = "pekko://Golden@10.0.0.3:25520/system/sharding/CartProxy#303";
  static final String P2 = "pekko://Golden@10.0.0.4:25520/system/sharding/CartProxy#404";
  static final String NODE = "pekko://Golden@10.0.0.1:25520";

  private PersistenceGolden() {}

  static ActorSystem<Void> system() {
    return StoreTestSupport.system(SYSTEM, "pekko.loglevel = WARNING");
  }

  /** One record of every kind the stores write. */
  static List<Sample> samples() {
    return List.of(
        new Sample("event-region-registered.json", new StoredEvent(Kind.REGION_REGISTERED, R1, null)),
        new Sample("event-proxy-registered.json", new StoredEvent(Kind.PROXY_REGISTERED, P1, null)),
        new Sample("event-region-terminated.json", new StoredEvent(Kind.REGION_TERMINATED, R2, null)),
        new Sample("event-proxy-terminated.json", new StoredEvent(Kind.PROXY_TERMINATED, P2, null)),
        new Sample("event-shard-home-allocated.json", new StoredEvent(Kind.SHARD_HOME_ALLOCATED, R1, "ünï-17")),
        new Sample("event-shard-home-deallocated.json", new StoredEvent(Kind.SHARD_HOME_DEALLOCATED, null, "17")),
        new Sample("event-taken-over.json", new StoredEvent(Kind.TAKEN_OVER, null, null)),
        new Sample("event-taken-over-node.json", StoredEvent.takenOver(NODE)),
        new Sample("event-kept-alive.json", StoredEvent.keptAlive(NODE)),
        new Sample("snapshot.json", new StoredSnapshot(
            List.of(new StoredSnapshot.Region(R2, List.of("3", "1", "ünï-17")), new StoredSnapshot.Region(R1, List.of())),
            List.of(P1, P2))),
        new Sample("snapshot-empty.json", new StoredSnapshot(List.of(), List.of())),
        new Sample("snapshot-with-term.json", new StoredSnapshot(
            List.of(new StoredSnapshot.Region(R1, List.of("5"))), List.of(), (1L << 40) + 7)),
        new Sample("snapshot-with-term-node.json", new StoredSnapshot(
            List.of(new StoredSnapshot.Region(R1, List.of("5"))), List.of(), 9L, NODE)),
        new Sample("events-batch.json", new StoredEventsBatch(List.of(R1, R2),
            List.of(new StoredEventsBatch.KindRun(Kind.SHARD_HOME_ALLOCATED, 3),
                new StoredEventsBatch.KindRun(Kind.SHARD_HOME_DEALLOCATED, 1),
                new StoredEventsBatch.KindRun(Kind.REGION_TERMINATED, 1)),
            List.of(0, 1, 0, 1), List.of("1", "ünï-17", "3", "1"))),
        new Sample("entities-change.json", new StoredEntitiesChange(List.of("a", "id-ü"), List.of("b"))),
        new Sample("entities-snapshot.json", new StoredEntitiesSnapshot(List.of("a", "c", "id-ü"))));
  }

  /** Writes this build's golden files under {@code args[0]}. */
  public static void main(String[] args) throws IOException {
    ActorSystem<Void> system = system();
    try {
      GoldenFiles.write(Path.of(args[0]).resolve(FORMAT).resolve("v" + StoredRecordVersion.CURRENT), system,
          samples());
    } finally {
      StoreTestSupport.terminate(system);
    }
  }
}
