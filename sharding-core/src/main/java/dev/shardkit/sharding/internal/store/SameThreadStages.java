package dev.shardkit.sharding.internal.store;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Turns a stage from Pekko's ask into a plain {@link CompletableFuture} whose dependent stages run
 * on the thread that completes it, as for any other future shardkit makes.
 *
 * <p>Why: the stages Pekko's asks return (Scala's {@code FutureConverters}) run every dependent
 * stage made without an executor ({@code thenApply}, {@code whenComplete}, ...) asynchronously on
 * the JVM's common pool; on a machine with fewer than three cores that pool has a parallelism of
 * one, and {@link CompletableFuture} then starts a new thread for each such stage. A store that
 * asks its replicator or journal thousands of times (remembered entities of many shards) then
 * starts thousands of threads. The callbacks shardkit chains on an answer are short and never
 * block, so running them where the answer arrives is safe.
 */
@InternalApi
public final class SameThreadStages {
  private SameThreadStages() {}

  /**
   * A future completed with {@code stage}'s value or failure (the same throwable, not wrapped).
   *
   * @throws NullPointerException if {@code stage} is null
   */
  public static <T> CompletableFuture<T> of(CompletionStage<T> stage) {
    CompletableFuture<T> plain = new CompletableFuture<>();
    // The *Async variant with an explicit executor is the one such stages do not redirect.
    stage.whenCompleteAsync((value, error) -> {
      if (error != null) {
        plain.completeExceptionally(error);
      } else {
        plain.complete(value);
      }
    }, Runnable::run);
    return plain;
  }
}
