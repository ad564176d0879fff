package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.CoordinatorBacklog;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What the {@link CoordinatorMachine} answers with, in the order it is to be done. Each effect
 * carries everything its port needs, and says which port carries it out ({@link #applyTo}): a new
 * effect does not compile until {@link CoordinatorPorts} has a method for it, which both the actor
 * and the simulation must then implement.
 */
@InternalApi
public sealed interface CoordinatorEffect {

  /** Carries this effect out. */
  void applyTo(CoordinatorPorts ports);

  /** A message to a region or proxy: an acknowledgement, homes, a hand-off, a refusal, an answer. */
  record Send(ActorRef<Object> to, ShardingProtocol message) implements CoordinatorEffect {
    @Override
    public void applyTo(CoordinatorPorts ports) {
      ports.send(to, message);
    }
  }

  /** The region on each node hears that this coordinator took over; each node says whether it has one. */
  record Announce(List<Address> nodes, RegisterAck hello) implements CoordinatorEffect {
    @Override
    public void applyTo(CoordinatorPorts ports) {
      ports.announce(nodes, hello);
    }
  }

  /** Watch a region or proxy: its end comes back as {@link CoordinatorInput.Terminated}. */
  record Watch(ActorRef<Object> ref) implements CoordinatorEffect {
    @Override
    public void applyTo(CoordinatorPorts ports) {
      ports.watch(ref);
    }
  }

  /** Load the state: {@link CoordinatorInput.Loaded} or {@link CoordinatorInput.LoadFailed}. */
  record Load(long attempt) implements CoordinatorEffect {
    @Override
    public void applyTo(CoordinatorPorts ports) {
      ports.load(attempt);
    }
  }

  /**
   * Tell {@link CoordinatorInput.GateOpened} once this node's delivery gate is open (at once if it
   * is open now); never if the node is downed or removed.
   */
  record AwaitGate() implements CoordinatorEffect {
    @Override
    public void applyTo(CoordinatorPorts ports) {
      ports.awaitGate();
    }
  }

  /** Write a batch: {@link CoordinatorInput.Stored} or {@link CoordinatorInput.StoreFailed}. */
  record Store(long writeId, List<CoordinatorEvent> events, CoordinatorState after) implements CoordinatorEffect {
    @Override
    public void applyTo(CoordinatorPorts ports) {
      ports.store(writeId, events, after);
    }
  }

  /** Read the shards that may have remembered entities. */
  record ReadRememberedShards(long readId) implements CoordinatorEffect {
    @Override
    public void applyTo(CoordinatorPorts ports) {
      ports.readRememberedShards(readId);
    }
  }

  /** Start (or restart) a timer: it fires as {@link CoordinatorInput.TimerFired} with this generation. */
  record StartTimer(CoordinatorTimer key, long generation, Duration delay) implements CoordinatorEffect {
    @Override
    public void applyTo(CoordinatorPorts ports) {
      ports.startTimer(key, generation, delay);
    }
  }

  record CancelTimer(CoordinatorTimer key) implements CoordinatorEffect {
    @Override
    public void applyTo(CoordinatorPorts ports) {
      ports.cancelTimer(key);
    }
  }

  record CancelAllTimers() implements CoordinatorEffect {
    @Override
    public void applyTo(CoordinatorPorts ports) {
      ports.cancelAllTimers();
    }
  }

  record ReplyBacklog(ActorRef<CoordinatorBacklog> to, CoordinatorBacklog backlog) implements CoordinatorEffect {
    @Override
    public void applyTo(CoordinatorPorts ports) {
      ports.replyBacklog(to, backlog);
    }
  }

  /** A message not acted on (a refused shard's request), counted and published as a dead letter. */
  record Drop(Object message, String reason) implements CoordinatorEffect {
    @Override
    public void applyTo(CoordinatorPorts ports) {
      ports.drop(message, reason);
    }
  }

  record Report(CoordinatorNotice notice) implements CoordinatorEffect {
    @Override
    public void applyTo(CoordinatorPorts ports) {
      ports.report(notice);
    }
  }

  /** The coordinator is done: the actor stops. */
  record Stopped() implements CoordinatorEffect {
    @Override
    public void applyTo(CoordinatorPorts ports) {
      ports.stopped();
    }
  }
}
