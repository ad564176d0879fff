package dev.shardkit.sharding.ddata.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which JVM options lmdbjava lacks. This module's tests run with them for code on the class
 * path (surefire's argLine), so a named JDK module stands in for a JVM without them.
 */
class LmdbJvmOptionsTest {

  @Test
  void lmdbjavaOnTheClassPathHasWhatItNeedsInTheseTests() {
    Module lmdbjava = org.lmdbjava.Env.class.getModule();
    assertEquals(false, lmdbjava.isNamed());
    assertEquals(List.of(), LmdbJvmOptions.missing(lmdbjava));
    LmdbJvmOptions.require("remembered entities");
  }

  @Test
  void aModuleThatJavaBaseDoesNotOpenToLacksBothOptionsNamedForIt() {
    Module sql = java.sql.Connection.class.getModule();
    assertEquals(List.of("--add-opens java.base/java.nio=java.sql", "--add-opens java.base/sun.nio.ch=java.sql"),
        LmdbJvmOptions.missing(sql));
  }
}
