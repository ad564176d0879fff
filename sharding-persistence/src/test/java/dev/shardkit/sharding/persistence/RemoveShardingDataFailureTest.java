package dev.shardkit.sharding.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** What RemoveShardingData prints for a deletion that failed. */
class RemoveShardingDataFailureTest {

  @Test
  void aFailureIsTheCausesMessage() {
    assertEquals("connection refused",
        RemoveShardingData.failure(new ExecutionException(new IllegalStateException("connection refused")),
            Duration.ofSeconds(3)));
  }

  @Test
  void aCauseWithoutAMessageIsNamedByItsClassNotPrintedAsNull() {
    assertEquals("java.lang.IllegalStateException",
        RemoveShardingData.failure(new ExecutionException(new IllegalStateException()), Duration.ofSeconds(3)));
  }

  @Test
  void aTimeoutSaysHowLongTheToolWaited() {
    assertEquals("no answer within 3000 ms (3 x shardkit.sharding.persistence.store-timeout); is the database "
        + "reachable?", RemoveShardingData.failure(new java.util.concurrent.TimeoutException(), Duration.ofSeconds(3)));
  }
}
