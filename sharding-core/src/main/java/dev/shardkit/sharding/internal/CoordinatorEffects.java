package dev.shardkit.sharding.internal;

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
    buffer.add(new CoordinatorEffect.Send(to, message));
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
