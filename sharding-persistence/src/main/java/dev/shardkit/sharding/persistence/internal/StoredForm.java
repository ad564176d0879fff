package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.persistence.internal.StoredEvent.Kind;
import dev.shardkit.sharding.internal.ShardIds;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.persistence.typed.EventAdapter;
import org.apache.pekko.persistence.typed.EventSeq;
import org.apache.pekko.persistence.typed.SnapshotAdapter;
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
    if (event instanceof RegionRegistered e) {
      return new StoredEvent(Kind.REGION_REGISTERED, ref(e.region()), null);
    } else if (event instanceof ProxyRegistered e) {
      return new StoredEvent(Kind.PROXY_REGISTERED, ref(e.proxy()), null);
    } else if (event instanceof RegionTerminated e) {
      return new StoredEvent(Kind.REGION_TERMINATED, ref(e.region()), null);
    } else if (event instanceof ProxyTerminated e) {
      return new StoredEvent(Kind.PROXY_TERMINATED, ref(e.proxy()), null);
    } else if (event instanceof ShardHomeAllocated e) {
      return new StoredEvent(Kind.SHARD_HOME_ALLOCATED, ref(e.region()), e.shardId());
    } else if (event instanceof ShardHomeDeallocated e) {
      return new StoredEvent(Kind.SHARD_HOME_DEALLOCATED, null, e.shardId());
    }
    throw new IllegalArgumentException("Unknown coordinator event " + event);
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
