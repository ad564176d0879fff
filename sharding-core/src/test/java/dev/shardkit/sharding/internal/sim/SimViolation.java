package dev.shardkit.sharding.internal.sim;

/** An invariant the simulation checks does not hold: names the invariant and what broke it. */
final class SimViolation extends RuntimeException {
  private final String invariant;

  SimViolation(String invariant, String detail) {
    super(invariant + ": " + detail);
    this.invariant = invariant;
  }

  String invariant() {
    return invariant;
  }
}
