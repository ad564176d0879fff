package dev.shardkit.sharding.internal;

/** The gate keeper's notices to a region, for the simulation in {@code internal.sim}. */
public final class SimGateChanges {
  public static final Object CLOSED = GateKeeper.GateChanged.CLOSED;
  public static final Object OPENED = GateKeeper.GateChanged.OPENED;

  private SimGateChanges() {}
}
