package dev.shardkit.sharding.internal.telemetry;

import com.typesafe.config.Config;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.spi.ShardingTelemetry;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The telemetry bindings of one actor system ({@code shardkit.sharding.telemetry}), created the
 * first time sharding starts there: the shells hand them the events they map from their notices.
 * A binding that throws is logged once and otherwise ignored, so that it never breaks sharding.
 */
@InternalApi
public final class TelemetryBindings implements Extension {
  private static final Logger LOG = LoggerFactory.getLogger(TelemetryBindings.class);
  static final String PATH = "shardkit.sharding.telemetry";

  private static final ExtensionId<TelemetryBindings> ID = new ExtensionId<>() {
    @Override
    public TelemetryBindings createExtension(ActorSystem<?> system) {
      return new TelemetryBindings(system.address(), create(system));
    }
  };

  private final Address node;
  private final ShardingTelemetry[] bindings;
  private final AtomicBoolean[] failed;

  TelemetryBindings(Address node, List<ShardingTelemetry> bindings) {
    this.node = node;
    this.bindings = bindings.toArray(ShardingTelemetry[]::new);
    this.failed = new AtomicBoolean[this.bindings.length];
    for (int i = 0; i < failed.length; i++) {
      failed[i] = new AtomicBoolean();
    }
  }

  /**
   * The system's bindings.
   *
   * @throws IllegalArgumentException if a configured binding cannot be created (the message names
   *     the class and what is wrong)
   */
  public static TelemetryBindings get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  /** The node the events are reported for. */
  public Address node() {
    return node;
  }

  /** Whether any binding listens: if not, the shells build no events. */
  public boolean active() {
    return bindings.length > 0;
  }

  /** Hands {@code event} to every binding; one that throws is logged once and skipped. */
  public void emit(ShardingEvent event) {
    for (int i = 0; i < bindings.length; i++) {
      try {
        bindings[i].onEvent(event);
      } catch (Throwable t) {
        if (!failed[i].getAndSet(true)) {
          LOG.error("Telemetry binding {} threw on {}; sharding goes on, and further failures of this binding are "
              + "not logged", bindings[i].getClass().getName(), event, t);
        }
      }
    }
  }

  /** The bindings {@code shardkit.sharding.telemetry} names, in order: JFR first if on. */
  static List<ShardingTelemetry> create(ActorSystem<?> system) {
    Config config = system.settings().config().getConfig(PATH);
    List<ShardingTelemetry> bindings = new ArrayList<>();
    if (config.getBoolean("jfr")) {
      bindings.add(new JfrTelemetry());
    }
    for (String className : config.getStringList("bindings")) {
      bindings.add(instantiate(className, system));
    }
    return bindings;
  }

  static ShardingTelemetry instantiate(String className, ActorSystem<?> system) {
    String what = PATH + ".bindings names " + className + ", which ";
    Class<?> type;
    try {
      type = Class.forName(className, true, system.dynamicAccess().classLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalArgumentException(what + "cannot be loaded: " + e, e);
    }
    if (!ShardingTelemetry.class.isAssignableFrom(type)) {
      throw new IllegalArgumentException(what + "does not implement " + ShardingTelemetry.class.getName());
    }
    Constructor<?> constructor;
    Object[] args;
    try {
      constructor = type.getConstructor(ActorSystem.class);
      args = new Object[] {system};
    } catch (NoSuchMethodException e) {
      try {
        constructor = type.getConstructor();
        args = new Object[0];
      } catch (NoSuchMethodException e2) {
        throw new IllegalArgumentException(what + "has neither a public constructor taking an ActorSystem nor a "
            + "public no-argument one (a nested class must be static and public)");
      }
    }
    try {
      return (ShardingTelemetry) constructor.newInstance(args);
    } catch (InvocationTargetException e) {
      throw new IllegalArgumentException(what + "threw from its constructor: " + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(what + "cannot be created: " + e, e);
    }
  }
}
