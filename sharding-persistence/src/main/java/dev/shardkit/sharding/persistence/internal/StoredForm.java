package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.persistence.internal.StoredEvent.Kind;
import dev.shardkit.sharding.internal.util.ShardIds;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.persistence.typed.EventAdapter;
import org.apache.pekko.persistence.typed.EventSeq;
import org.apache.pekko.persistence.typed.SnapshotAdapter;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * Converts coordinator events and states to their stored form ({@link StoredEvent},
 * {@link StoredSnapshot}) and back. References become {@link ActorRefResolver} strings, which any
 * node of the cluster resolves again, also after the writer's node is gone.
 *
 * <p>Shard ids follow {@link ShardIds} on both paths, so that what is written can always be read:
 * writing an event or snapshot with an invalid shard id fails with an
 * {@link IllegalArgumentException} naming it (nothing is written); reading one, which only an
 * older shardkit or a hand-edited journal can have written, is logged as an error naming it and
 * that entry is skipped (the shard gets a home again when next used), instead of failing every
 * load of the coordinator.
 */
public final class StoredForm {
  private static final String WHO = "the persistence coordinator state store";
  private final ActorRefResolver resolver;
  private final Logger log;

  public StoredForm(ActorSystem<?> system) {
    this.resolver = ActorRefResolver.get(system);
    this.log = system.log();
  }

  /** @throws IllegalArgumentException if the event's shard id is invalid ({@link ShardIds}) */
  public StoredEvent toStored(CoordinatorEvent event) {
    ShardIds.requireIn(List.of(event), WHO);
    ActorRef<?> ref = refOf(event);
    return new StoredEvent(kindOf(event), ref == null ? null : ref(ref), shardIdOf(event));
  }

  private static Kind kindOf(CoordinatorEvent event) {
    if (event instanceof RegionRegistered) {
      return Kind.REGION_REGISTERED;
    } else if (event instanceof ProxyRegistered) {
      return Kind.PROXY_REGISTERED;
    } else if (event instanceof RegionTerminated) {
      return Kind.REGION_TERMINATED;
    } else if (event instanceof ProxyTerminated) {
      return Kind.PROXY_TERMINATED;
    } else if (event instanceof ShardHomeAllocated) {
      return Kind.SHARD_HOME_ALLOCATED;
    } else if (event instanceof ShardHomeDeallocated) {
      return Kind.SHARD_HOME_DEALLOCATED;
    }
    throw new IllegalArgumentException("Unknown coordinator event " + event);
  }

  /** The region or proxy the event names; null for a deallocation. */
  private static @Nullable ActorRef<?> refOf(CoordinatorEvent event) {
    if (event instanceof RegionRegistered e) {
      return e.region();
    } else if (event instanceof ProxyRegistered e) {
      return e.proxy();
    } else if (event instanceof RegionTerminated e) {
      return e.region();
    } else if (event instanceof ProxyTerminated e) {
      return e.proxy();
    } else if (event instanceof ShardHomeAllocated e) {
      return e.region();
    }
    return null;
  }

  private static String shardIdOf(CoordinatorEvent event) {
    if (event instanceof ShardHomeAllocated e) {
      return e.shardId();
    }
    return event instanceof ShardHomeDeallocated e ? e.shardId() : null;
  }

  /** The event of a kind that changes the state; {@code ref} and {@code shardId} as the kind needs. */
  private static CoordinatorEvent eventOf(Kind kind, ActorRef<Object> ref, String shardId) {
    return switch (kind) {
      case REGION_REGISTERED -> new RegionRegistered(ref);
      case PROXY_REGISTERED -> new ProxyRegistered(ref);
      case REGION_TERMINATED -> new RegionTerminated(ref);
      case PROXY_TERMINATED -> new ProxyTerminated(ref);
      case SHARD_HOME_ALLOCATED -> new ShardHomeAllocated(shardId, ref);
      case SHARD_HOME_DEALLOCATED -> new ShardHomeDeallocated(shardId);
      case TAKEN_OVER, KEPT_ALIVE -> throw new IllegalStateException(kind + " is not a change of the coordinator state");
    };
  }

  /** @throws IllegalStateException if the stored event lacks a field its kind needs */
  public CoordinatorEvent fromStored(StoredEvent stored) {
    if (stored.kind() == null) {
      throw new IllegalStateException("Stored coordinator event " + stored + " has no kind");
    }
    return switch (stored.kind()) {
      case REGION_REGISTERED -> new RegionRegistered(resolve(stored));
      case PROXY_REGISTERED -> new ProxyRegistered(resolve(stored));
      case REGION_TERMINATED -> new RegionTerminated(resolve(stored));
      case PROXY_TERMINATED -> new ProxyTerminated(resolve(stored));
      case SHARD_HOME_ALLOCATED -> new ShardHomeAllocated(shardId(stored), resolve(stored));
      case SHARD_HOME_DEALLOCATED -> new ShardHomeDeallocated(shardId(stored));
      case TAKEN_OVER -> throw new IllegalStateException("Stored event " + stored + " is a coordinator's take-over, "
          + "not a change of the coordinator state");
      case KEPT_ALIVE -> throw new IllegalStateException("Stored event " + stored + " is a coordinator's keep-alive, "
          + "not a change of the coordinator state");
    };
  }

  /**
   * The stored form of one write of many events, as one record.
   *
   * @throws IllegalArgumentException if {@code events} is empty or an event's shard id is invalid
   *     ({@link ShardIds})
   */
  public StoredEventsBatch toStored(List<CoordinatorEvent> events) {
    if (events.isEmpty()) {
      throw new IllegalArgumentException("A coordinator events batch needs at least one event");
    }
    ShardIds.requireIn(events, WHO);
    Map<ActorRef<?>, Integer> refIndex = new HashMap<>();
    List<String> refs = new ArrayList<>();
    List<StoredEventsBatch.KindRun> kinds = new ArrayList<>();
    List<Integer> refIndexes = new ArrayList<>(events.size());
    List<String> shardIds = new ArrayList<>(events.size());
    Kind runKind = null;
    int runCount = 0;
    for (CoordinatorEvent event : events) {
      Kind kind = kindOf(event);
      if (kind != runKind && runKind != null) {
        kinds.add(new StoredEventsBatch.KindRun(runKind, runCount));
        runCount = 0;
      }
      runKind = kind;
      runCount++;
      ActorRef<?> ref = refOf(event);
      if (ref != null) {
        refIndexes.add(refIndex.computeIfAbsent(ref, r -> {
          refs.add(ref(r));
          return refs.size() - 1;
        }));
      }
      String shardId = shardIdOf(event);
      if (shardId != null) {
        shardIds.add(shardId);
      }
    }
    kinds.add(new StoredEventsBatch.KindRun(runKind, runCount));
    return new StoredEventsBatch(refs, kinds, refIndexes, shardIds);
  }

  /**
   * The events of a stored batch, in order. An event with an invalid shard id, which only an
   * edited journal can hold, is logged as an error naming it and left out, like such a single
   * stored event.
   *
   * @throws IllegalStateException if the batch is incomplete or inconsistent (a missing list, a
   *     reference index out of range, fewer references or shard ids than its kinds need, or more)
   */
  public List<CoordinatorEvent> fromStored(StoredEventsBatch stored) {
    if (stored.refs() == null || stored.kinds() == null || stored.refIndexes() == null
        || stored.shardIds() == null) {
      throw new IllegalStateException("Stored coordinator events batch lacks its refs, kinds, refIndexes or "
          + "shardIds: " + brief(stored));
    }
    List<ActorRef<Object>> refs = new ArrayList<>(stored.refs().size());
    for (String r : stored.refs()) {
      refs.add(resolve(r, "events batch"));
    }
    List<CoordinatorEvent> events = new ArrayList<>(stored.shardIds().size());
    int nextRef = 0;
    int nextShard = 0;
    for (StoredEventsBatch.KindRun run : stored.kinds()) {
      if (run == null || run.kind() == null || run.count() < 1 || !changesState(run.kind())) {
        throw new IllegalStateException("Stored coordinator events batch has a run of kinds that is not one of "
            + "coordinator events: " + run);
      }
      for (int i = 0; i < run.count(); i++) {
        ActorRef<Object> ref = null;
        if (StoredEventsBatch.hasRef(run.kind())) {
          int index = nextRef < stored.refIndexes().size() ? stored.refIndexes().get(nextRef++) : -1;
          if (index < 0 || index >= refs.size()) {
            throw new IllegalStateException("Stored coordinator events batch lacks a valid reference for its "
                + nextRef + "th referring event (" + run.kind() + "): " + brief(stored));
          }
          ref = refs.get(index);
        }
        String shardId = null;
        if (StoredEventsBatch.hasShardId(run.kind())) {
          if (nextShard >= stored.shardIds().size()) {
            throw new IllegalStateException("Stored coordinator events batch has fewer shard ids than its "
                + "kinds need: " + brief(stored));
          }
          shardId = stored.shardIds().get(nextShard++);
          if (!ShardIds.isValid(shardId)) {
            skipped("batched event (" + run.kind() + ")", shardId);
            continue;
          }
        }
        events.add(eventOf(run.kind(), ref, shardId));
      }
    }
    if (nextRef != stored.refIndexes().size() || nextShard != stored.shardIds().size()) {
      throw new IllegalStateException("Stored coordinator events batch has more references or shard ids than "
          + "its kinds use: " + brief(stored));
    }
    return events;
  }

  private static String brief(StoredEventsBatch stored) {
    return "kinds " + stored.kinds() + ", " + (stored.refs() == null ? "no" : stored.refs().size()) + " refs, "
        + (stored.refIndexes() == null ? "no" : stored.refIndexes().size()) + " refIndexes, "
        + (stored.shardIds() == null ? "no" : stored.shardIds().size()) + " shardIds";
  }

  private static boolean changesState(Kind kind) {
    return kind != Kind.TAKEN_OVER && kind != Kind.KEPT_ALIVE;
  }

  /** @throws IllegalArgumentException if a shard id of the state is invalid ({@link ShardIds}) */
  public StoredSnapshot toStored(CoordinatorState state) {
    List<StoredSnapshot.Region> regions = new ArrayList<>();
    for (Map.Entry<ActorRef<Object>, List<String>> r : state.regions().entrySet()) {
      r.getValue().forEach(shard -> ShardIds.require("shard id", shard, WHO));
      regions.add(new StoredSnapshot.Region(ref(r.getKey()), List.copyOf(r.getValue())));
    }
    // Proxies are a set; sorted, the same state always gives the same snapshot.
    List<String> proxies = state.proxies().stream().map(this::ref).sorted().toList();
    return new StoredSnapshot(regions, proxies);
  }

  /**
   * Rebuilds the state through {@link CoordinatorState#applied}, so a snapshot that breaks the
   * state's rules (a shard with two homes) is refused like such an event would be.
   *
   * @throws IllegalStateException if the snapshot is incomplete or inconsistent
   */
  public CoordinatorState fromStored(StoredSnapshot stored) {
    if (stored.regions() == null || stored.proxies() == null) {
      throw new IllegalStateException("Stored coordinator snapshot " + stored + " lacks its regions or proxies");
    }
    CoordinatorState state = CoordinatorState.empty();
    for (StoredSnapshot.Region r : stored.regions()) {
      state = state.applied(new RegionRegistered(resolve(r.ref(), "region")));
    }
    for (String p : stored.proxies()) {
      state = state.applied(new ProxyRegistered(resolve(p, "proxy")));
    }
    for (StoredSnapshot.Region r : stored.regions()) {
      if (r.shards() == null) {
        throw new IllegalStateException("Stored coordinator snapshot: region " + r.ref() + " lacks its shard list");
      }
      ActorRef<Object> region = resolve(r.ref(), "region");
      for (String shard : r.shards()) {
        if (ShardIds.isValid(shard)) {
          state = state.applied(new ShardHomeAllocated(shard, region));
        } else {
          skipped("snapshot entry of region " + r.ref(), shard);
        }
      }
    }
    return state;
  }

  /** Lets the journal behaviour keep {@link CoordinatorEvent}s while the journal sees their stored form. */
  public EventAdapter<CoordinatorEvent, StoredEvent> eventAdapter() {
    return new EventAdapter<>() {
      @Override
      public StoredEvent toJournal(CoordinatorEvent e) {
        return toStored(e);
      }

      @Override
      public String manifest(CoordinatorEvent event) {
        return "";
      }

      @Override
      public EventSeq<CoordinatorEvent> fromJournal(StoredEvent p, String manifest) {
        if (p.kind() == Kind.SHARD_HOME_ALLOCATED || p.kind() == Kind.SHARD_HOME_DEALLOCATED) {
          if (!ShardIds.isValid(p.shardId())) {
            skipped("event " + p, p.shardId());
            return EventSeq.empty();
          }
        }
        return EventSeq.single(fromStored(p));
      }
    };
  }

  /** Lets the journal behaviour keep a {@link CoordinatorState} while snapshots hold its stored form. */
  public SnapshotAdapter<CoordinatorState> snapshotAdapter() {
    return new SnapshotAdapter<>() {
      @Override
      public Object toJournal(CoordinatorState state) {
        return toStored(state);
      }

      @Override
      public CoordinatorState fromJournal(Object from) {
        if (from instanceof StoredSnapshot s) {
          return fromStored(s);
        }
        throw new IllegalStateException("Unexpected coordinator snapshot of " + from.getClass().getName()
            + "; expected " + StoredSnapshot.class.getName());
      }
    };
  }

  private void skipped(String what, String shardId) {
    log.error("The coordinator state in the journal has a {} with an invalid shard id ({}); skipping it, so that "
        + "the coordinator can load: that shard gets a home again when next used. Only an older shardkit or an "
        + "edited journal can have written it", what, ShardIds.problem("shard id", shardId).orElse(""));
  }

  private String ref(ActorRef<?> ref) {
    return resolver.toSerializationFormat(ref);
  }

  private ActorRef<Object> resolve(StoredEvent stored) {
    return resolve(stored.ref(), "event " + stored);
  }

  private ActorRef<Object> resolve(String ref, String where) {
    if (ref == null || ref.isEmpty()) {
      throw new IllegalStateException("Stored coordinator " + where + " lacks an actor reference");
    }
    return resolver.resolveActorRef(ref);
  }

  private static String shardId(StoredEvent stored) {
    ShardIds.problem("shard id", stored.shardId()).ifPresent(problem -> {
      throw new IllegalStateException("Stored coordinator event " + stored + " lacks its shard id: " + problem);
    });
    return stored.shardId();
  }
}
