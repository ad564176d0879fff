package dev.shardkit.sharding.spi;

/**
 * Fails a {@link CoordinatorStateStore#store} that the store refused because another coordinator of
 * the type took over after the one storing loaded: its memory is stale, and writing it would undo
 * what the successor stored. The coordinator stops acting on what it holds and loads again, which
 * either gives it a new term or finds that it has been replaced.
 */
public class CoordinatorStateSupersededException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** @param message what was refused and who took over, for the log */
  public CoordinatorStateSupersededException(String message) {
    super(message);
  }
}
