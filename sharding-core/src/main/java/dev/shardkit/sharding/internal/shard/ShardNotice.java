package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.internal.InternalApi;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.event.Level;

/**
 * What a shard's machine ({@link ShardMachine}) has to say, as values: the shard actor logs each
 * with the text it renders, which is the text the shard has always logged (tests and operators
 * look for it); shardkit's simulation records them instead.
 *
 * <p>Internal API: public for shardkit's simulation tests; not for applications, and it may change
 * in any release.
 */
@InternalApi
public sealed interface ShardNotice {

  /** How loud. */
  Level level();

  /** The text, as logged. */
  String render();

  /** The exception whose stack trace goes with the text; null for none. */
  default @Nullable Throwable throwable() {
    return null;
  }

  /** A {@code Passivate} from something that is not a live entity of this shard. */
  record PassivateIgnored(String typeName, String shardId, Object sender) implements ShardNotice {
    @Override
    public Level level() {
      return Level.DEBUG;
    }

    @Override
    public String render() {
      return "Entity type [" + typeName + "]: ignoring Passivate for " + sender + ", not an entity of shard ["
          + shardId + "]";
    }
  }

  /** An entity's incarnation failed; {@code inARow} counts this failure. */
  record EntityFailed(String typeName, String shardId, String entityId, int inARow, Throwable cause)
      implements ShardNotice {
    @Override
    public Level level() {
      return Level.WARN;
    }

    @Override
    public String render() {
      return "Entity type [" + typeName + "]: entity [" + entityId + "] of shard [" + shardId + "] failed ("
          + inARow + " in a row): " + cause;
    }
  }

  /**
   * An entity that stopped without passivating starts again after {@code delay}: a remembered one
   * after its first stop (informational), any one that keeps stopping soon after it starts (a
   * warning).
   */
  record BackingOff(String typeName, String shardId, String entityId, int inARow, Duration delay)
      implements ShardNotice {
    @Override
    public Level level() {
      return inARow > 1 ? Level.WARN : Level.INFO;
    }

    @Override
    public String render() {
      return inARow > 1
          ? "Entity type [" + typeName + "]: entity [" + entityId + "] of shard [" + shardId + "] stopped " + inARow
              + " times in a row shortly after starting; it starts again in " + delay.toMillis()
              + " ms, and its messages wait until then"
          : "Entity type [" + typeName + "]: remembered entity [" + entityId + "] of shard [" + shardId
              + "] stopped without passivating; it starts again in " + delay.toMillis() + " ms";
    }
  }

  /** An entity's behavior could not be created; its messages are dropped. */
  record CreationFailed(String typeName, String shardId, String entityId, Throwable cause) implements ShardNotice {
    @Override
    public Level level() {
      return Level.ERROR;
    }

    @Override
    public String render() {
      return "Entity type [" + typeName + "]: creating entity [" + entityId + "] in shard [" + shardId + "] failed";
    }

    @Override
    public Throwable throwable() {
      return cause;
    }
  }

  /**
   * The shard read {@code count} remembered entities and starts them, {@code batch} at a time
   * every {@code frequency} (all at once for a batch of 0).
   */
  record StartingRemembered(String typeName, String shardId, int count, int batch, Duration frequency)
      implements ShardNotice {
    @Override
    public Level level() {
      return Level.INFO;
    }

    @Override
    public String render() {
      return "Entity type [" + typeName + "]: shard [" + shardId + "] starts " + count + " remembered entities"
          + (batch == 0 ? "" : ", " + batch + " every " + frequency.toMillis() + " ms");
    }
  }

  /** Reading the remember-entities store failed; it is read again after {@code retry}. */
  record StoreReadFailed(String typeName, String shardId, String store, Throwable cause, Duration retry)
      implements ShardNotice {
    @Override
    public Level level() {
      return Level.WARN;
    }

    @Override
    public String render() {
      return "Entity type [" + typeName + "]: shard [" + shardId + "] could not read its remembered entities from "
          + store + " (" + cause + "); retrying in " + retry.toMillis() + " ms, its messages wait meanwhile";
    }
  }

  /** A write of {@code changes} changes to the remember-entities store failed; retried after {@code retry}. */
  record StoreWriteFailed(String typeName, String shardId, int changes, String store, Throwable cause,
      Duration retry) implements ShardNotice {
    @Override
    public Level level() {
      return Level.WARN;
    }

    @Override
    public String render() {
      return "Entity type [" + typeName + "]: shard [" + shardId + "] could not write " + changes
          + " remembered-entity change(s) to " + store + " (" + cause + "); retrying in " + retry.toMillis()
          + " ms, new entities wait meanwhile";
    }
  }
}
