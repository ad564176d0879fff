package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.internal.machine.EffectBuffer;
import dev.shardkit.sharding.internal.machine.TimerTable;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Where the coordinator machine and its components put their effects while it handles one input:
 * its {@link EffectBuffer}, and its {@link TimerTable}, whose generations the timer effects carry.
 * Owned by one machine; not thread-safe.
 */
final class CoordinatorEffects {
  private final EffectBuffer<CoordinatorEffect> buffer = new EffectBuffer<>();
  private final TimerTable<CoordinatorTimer> timers = new TimerTable<>();
  /** Null unless the type remembers its entities. */
  private StartConfirmations startConfirmations;

  EffectBuffer<CoordinatorEffect> buffer() {
    return buffer;
  }

  TimerTable<CoordinatorTimer> timers() {
    return timers;
  }

  void add(CoordinatorEffect effect) {
    buffer.add(effect);
  }

  void send(ActorRef<Object> to, ShardingProtocol message) {
    if (startConfirmations != null && message instanceof ShardingProtocol.ShardHome home
        && home.region().equals(to) && !home.confirmStart()) {
      message = home.confirming();
      if (startConfirmations.expect(home)) {
        startTimer(new CoordinatorTimer.ConfirmStarts(), StartConfirmations.INTERVAL);
      }
    }
    buffer.add(new CoordinatorEffect.Send(to, message));
  }

  /**
   * From now on every home told to its own region asks it to confirm the start, and is awaited
   * in {@code confirmations}: for a type that remembers its entities, whatever path tells the home
   * (a placement, the end of a move, an answer).
   */
  void confirmStartsIn(StartConfirmations confirmations) {
    this.startConfirmations = confirmations;
  }

  void report(CoordinatorNotice notice) {
    buffer.add(new CoordinatorEffect.Report(notice));
  }

  void startTimer(CoordinatorTimer key, Duration delay) {
    buffer.add(new CoordinatorEffect.StartTimer(key, timers.start(key), delay));
  }

  void cancelTimer(CoordinatorTimer key) {
    if (timers.isRunning(key)) {
      timers.cancel(key);
      buffer.add(new CoordinatorEffect.CancelTimer(key));
    }
  }

  /** Forgets every timer: none that fires from now on counts. */
  void cancelAllTimers() {
    timers.cancelAll();
    buffer.add(new CoordinatorEffect.CancelAllTimers());
  }
}
