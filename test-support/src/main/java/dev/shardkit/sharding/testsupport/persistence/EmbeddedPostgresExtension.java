package dev.shardkit.sharding.testsupport.persistence;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One embedded PostgreSQL for a whole test class, started before its tests and stopped after
 * them: {@code @RegisterExtension static final EmbeddedPostgresExtension POSTGRES = new ...}.
 */
public final class EmbeddedPostgresExtension implements BeforeAllCallback, AfterAllCallback {
  private EmbeddedPostgresServer server;

  @Override
  public void beforeAll(ExtensionContext context) {
    server = EmbeddedPostgresServer.start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  /**
   * The running server.
   *
   * @throws IllegalStateException outside the test class's lifetime
   */
  public EmbeddedPostgresServer server() {
    if (server == null) {
      throw new IllegalStateException("the embedded PostgreSQL runs only while its test class runs");
    }
    return server;
  }
}
