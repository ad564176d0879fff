package dev.shardkit.sharding.internal.wire;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Keeps protocol messages that lack a required field ({@link ProtocolFields}) away from a region's
 * or coordinator's handlers, which may rely on every id and ref being there. What comes over the
 * wire was checked by the serializer already; this covers what reaches the actor without it (a
 * local sender, or a cluster that does not verify local messages). The message is handed to
 * {@code invalid} with the reason, to be logged and counted, and the actor goes on.
 */
@InternalApi
public final class InvalidMessageFilter extends BehaviorInterceptor<Object, Object> {
  private final BiConsumer<Object, String> invalid;

  /** @param invalid told each refused message and why */
  public InvalidMessageFilter(BiConsumer<Object, String> invalid) {
    super(Object.class);
    this.invalid = invalid;
  }

  @Override
  public Behavior<Object> aroundReceive(TypedActorContext<Object> ctx, Object msg, ReceiveTarget<Object> target) {
    Optional<String> problem = msg instanceof ShardingProtocol ? ProtocolFields.problem(msg) : Optional.empty();
    if (problem.isPresent()) {
      invalid.accept(msg, "an invalid message (" + problem.get() + ")");
      return Behaviors.same();
    }
    return target.apply(ctx, msg);
  }

  @Override
  public Behavior<Object> aroundSignal(TypedActorContext<Object> ctx, Signal signal, SignalTarget<Object> target) {
    return target.apply(ctx, signal);
  }
}
