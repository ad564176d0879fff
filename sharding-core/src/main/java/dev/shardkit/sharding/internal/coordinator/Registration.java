package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What the coordinator decides when a region or a proxy registers. A proxy that registered as a
 * region before is ignored: the region's registration holds. One the state does not have yet is
 * recorded; one it has registers again (say, with a new coordinator) and changes nothing. Either
 * way the homes of the shards a region reports hosting are learned. Immutable.
 *
 * @param ignored whether the registration is ignored; it has no events then
 * @param isNew whether the state did not have the region or proxy
 * @param events what to store, in order: the registration if new, then the reported homes
 */
record Registration(boolean ignored, boolean isNew, List<CoordinatorEvent> events) {

  Registration {
    events = List.copyOf(events);
  }

  /**
   * @param ref the region or proxy that registers
   * @param proxy whether it registers as a proxy
   * @param reported the homes of the shards it reports hosting ({@link Placement#reported})
   */
  static Registration decide(CoordinatorState state, ActorRef<Object> ref, boolean proxy,
      List<CoordinatorEvent> reported) {
    if (proxy && state.regions().containsKey(ref)) {
      return new Registration(true, false, List.of());
    }
    boolean isNew = proxy ? !state.proxies().contains(ref) : !state.regions().containsKey(ref);
    List<CoordinatorEvent> events = new ArrayList<>();
    if (isNew) {
      events.add(proxy ? new ProxyRegistered(ref) : new RegionRegistered(ref));
    }
    events.addAll(reported);
    return new Registration(false, isNew, events);
  }
}
