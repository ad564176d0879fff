package dev.shardkit.sharding.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class SameThreadStagesTest {

  /**
   * Behaves like the stages Pekko's asks return: dependent stages made without an executor run on
   * the default async executor, here one that counts its tasks and runs them.
   */
  static final class AsyncByDefault<T> extends CompletableFuture<T> {
    final AtomicInteger asyncTasks = new AtomicInteger();

    @Override
    public Executor defaultExecutor() {
      return task -> {
        asyncTasks.incrementAndGet();
        task.run();
      };
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
      return new CompletableFuture<>();
    }

    @Override
    public <U> CompletableFuture<U> thenApply(Function<? super T, ? extends U> fn) {
      return thenApplyAsync(fn);
    }

    @Override
    public CompletableFuture<T> whenComplete(BiConsumer<? super T, ? super Throwable> action) {
      return whenCompleteAsync(action);
    }
  }

  @Test
  void dependentStagesRunOnTheCompletingThreadWithoutTheDefaultExecutor() throws Exception {
    AsyncByDefault<String> asked = new AsyncByDefault<>();
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    CompletableFuture<Integer> length = SameThreadStages.of(asked).thenApply(s -> {
      ranOn.set(Thread.currentThread());
      return s.length();
    });
    Thread completer = new Thread(() -> asked.complete("answer"), "completer");
    completer.start();
    completer.join();
    assertEquals(6, length.get());
    assertSame(completer, ranOn.get());
    assertEquals(0, asked.asyncTasks.get(), "a dependent stage went to the default executor");
    // Without it, the same chain goes through the executor: the test can tell.
    AsyncByDefault<String> direct = new AsyncByDefault<>();
    direct.whenComplete((v, e) -> { });
    direct.complete("x");
    assertEquals(1, direct.asyncTasks.get());
  }

  @Test
  void aFailureComesThroughAsTheSameThrowable() {
    AsyncByDefault<String> asked = new AsyncByDefault<>();
    CompletableFuture<String> plain = SameThreadStages.of(asked);
    IllegalStateException cause = new IllegalStateException("no answer");
    asked.completeExceptionally(cause);
    CompletionException thrown = assertThrows(CompletionException.class, plain::join);
    assertSame(cause, thrown.getCause());
  }
}
