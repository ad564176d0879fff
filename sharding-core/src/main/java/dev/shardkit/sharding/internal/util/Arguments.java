package dev.shardkit.sharding.internal.util;

import dev.shardkit.sharding.internal.InternalApi;

/**
 * The rule for null arguments of shardkit's public API, in one place: a null where a value is
 * required fails at once with an {@link IllegalArgumentException} that names the method and the
 * argument, the same exception bad values get. Parameters that do accept null say so with
 * JSpecify's {@code @Nullable}.
 *
 * <p>Internal API: public only for shardkit's own modules; not for applications, and it may change
 * in any release.
 */
@InternalApi
public final class Arguments {
  private Arguments() {}

  /**
   * @param method the method as a user calls it, for example {@code "Entity.withRole"}
   * @param argument the parameter's name in the method's signature
   * @return {@code value}, which is not null
   * @throws IllegalArgumentException if {@code value} is null
   */
  public static <T> T requireNonNull(T value, String method, String argument) {
    if (value == null) {
      throw new IllegalArgumentException(method + ": " + argument + " must not be null");
    }
    return value;
  }

  /** Like {@link #requireNonNull(Object, String, String)}, with a hint of what to pass instead. */
  public static <T> T requireNonNull(T value, String method, String argument, String instead) {
    if (value == null) {
      throw new IllegalArgumentException(method + ": " + argument + " must not be null; " + instead);
    }
    return value;
  }
}
