package dev.shardkit.sharding.ddata.internal;

import com.typesafe.config.Config;
import java.io.NotSerializableException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.DeadLetterSuppression;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.ddata.DurableStore;
import org.apache.pekko.cluster.ddata.DurableStore.DurableDataEnvelope;
import org.apache.pekko.cluster.ddata.DurableStore.StoreReply;
import org.apache.pekko.cluster.ddata.GCounter;
import org.apache.pekko.event.Logging;
import org.apache.pekko.event.LoggingAdapter;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * The durable store of shardkit's remembered-entities replicators: it answers Pekko's
 * durable-store protocol ({@link DurableStore}) like Pekko's LMDB store, and keeps the same files
 * (see {@link LmdbDurableFile}), but commits in groups. Every {@code Store} that arrives before
 * the store's next flush joins one batch, written in one LMDB transaction; the first store of a
 * batch sends the flush, so a lone store waits for nothing but the disk. Only once the
 * transaction is committed, on disk, does each store get its success reply, so a confirmed write
 * survives a crash as before; if the transaction fails, every store of the batch gets its failure
 * reply and nothing of it is written. Why: every commit waits for the disk to sync, and a replicator
 * busy with many small updates (shards remembering new entities) spent most of its time waiting
 * for one sync per update.
 *
 * <p>With {@code lmdb.write-behind-interval} set, stores are answered at once and written every
 * interval, as Pekko's store does (losing the last interval's writes if the node crashes).
 *
 * <p>Configured as {@code durable.store-actor-class}; the replicator passes its {@code durable}
 * settings ({@code lmdb.dir}, {@code lmdb.map-size}, {@code lmdb.write-behind-interval}).
 * {@code LoadAll} fails with {@link DurableStore.LoadFailed} if the files cannot be
 * read, on which the replicator stops.
 */
public class GroupCommitDurableStore extends AbstractActor {
  /** Sent to itself only, so never serialized (also not where serialize-messages = on). */
  private enum Flush implements NoSerializationVerificationNeeded, DeadLetterSuppression { INSTANCE }

  private final LoggingAdapter log = Logging.getLogger(getContext().getSystem(), this);
  private final DurableFile file;
  private final Duration writeBehind;
  private final SerializerWithStringManifest serializer;
  private final String manifest;
  private StoreBatch pending = new StoreBatch();

  /**
   * @throws IllegalArgumentException if {@code lmdb.map-size} is not positive
   * @throws com.typesafe.config.ConfigException if a setting is missing or malformed
   */
  public GroupCommitDurableStore(Config durable) {
    this(durable, GroupCommitDurableStore::lmdbFile);
  }

  /** A store that keeps its values in the file {@code files} opens; for tests of what it promises. */
  protected GroupCommitDurableStore(Config durable, BiFunction<Config, ActorContext, DurableFile> files) {
    String interval = durable.getString("lmdb.write-behind-interval");
    this.writeBehind = interval.equalsIgnoreCase("off") ? Duration.ZERO
        : durable.getDuration("lmdb.write-behind-interval");
    this.serializer = envelopeSerializer(getContext().getSystem());
    // Every envelope has the same manifest, whatever data it wraps; Pekko stores none on disk.
    this.manifest = serializer.manifest(new DurableDataEnvelope(GCounter.empty()));
    this.file = files.apply(durable, getContext());
  }

  private static DurableFile lmdbFile(Config durable, ActorContext context) {
    return new LmdbDurableFile(LmdbDurableFile.directory(durable.getString("lmdb.dir"), context.getSystem().name(),
        context.getSelf().path().parent().name(), () -> Cluster.get(context.getSystem()).selfAddress().port().get()),
        durable.getBytes("lmdb.map-size"));
  }

  private static SerializerWithStringManifest envelopeSerializer(ActorSystem system) {
    try {
      return (SerializerWithStringManifest) SerializationExtension.get(system).serializerFor(DurableDataEnvelope.class);
    } catch (NotSerializableException e) {
      throw new IllegalStateException("No serializer for Pekko's durable data envelopes; is "
          + "pekko-distributed-data's reference.conf on the classpath?", e);
    }
  }

  @Override
  public Receive createReceive() {
    return receiveBuilder()
        .matchEquals(DurableStore.LoadAll$.MODULE$, m -> loadAll())
        .match(DurableStore.Store.class, this::store)
        .matchEquals(Flush.INSTANCE, m -> flush())
        .build();
  }

  private void loadAll() {
    Map<String, DurableDataEnvelope> loaded = new HashMap<>();
    try {
      for (Map.Entry<String, byte[]> entry : file.readAll().entrySet()) {
        loaded.put(entry.getKey(), (DurableDataEnvelope) serializer.fromBinary(entry.getValue(), manifest));
      }
    } catch (Exception e) {
      throw new DurableStore.LoadFailed("failed to load durable distributed-data", e);
    }
    if (!loaded.isEmpty()) {
      scala.collection.immutable.Map<String, DurableDataEnvelope> data =
          scala.collection.immutable.Map$.MODULE$.from(scala.jdk.javaapi.CollectionConverters.asScala(loaded));
      getSender().tell(new DurableStore.LoadData(data), getSelf());
    }
    getSender().tell(DurableStore.LoadAllCompleted$.MODULE$, getSelf());
  }

  private void store(DurableStore.Store store) {
    if (pending.isEmpty()) {
      if (writeBehind.isZero()) {
        getSelf().tell(Flush.INSTANCE, getSelf());
      } else {
        getContext().getSystem().scheduler().scheduleOnce(writeBehind, getSelf(), Flush.INSTANCE,
            getContext().getDispatcher(), getSelf());
      }
    }
    StoreReply reply = store.reply().isDefined() ? store.reply().get() : null;
    if (reply != null && !writeBehind.isZero()) {
      reply.replyTo().tell(reply.successMsg(), getSelf());
      reply = null;
    }
    pending.add(store.key(), store.data(), reply);
  }

  private void flush() {
    StoreBatch batch = pending;
    pending = new StoreBatch();
    if (batch.isEmpty()) {
      return;
    }
    boolean written;
    try {
      Map<String, byte[]> values = new LinkedHashMap<>();
      batch.values().forEach((key, value) -> values.put(key, serializer.toBinary(value)));
      file.write(values);
      written = true;
    } catch (RuntimeException e) {
      log.error(e, "failed to store {}", batch.values().keySet());
      written = false;
    }
    for (StoreReply reply : batch.replies()) {
      reply.replyTo().tell(written ? reply.successMsg() : reply.failureMsg(), getSelf());
    }
  }

  @Override
  public void postStop() {
    try {
      flush();
    } finally {
      file.close();
    }
  }
}
