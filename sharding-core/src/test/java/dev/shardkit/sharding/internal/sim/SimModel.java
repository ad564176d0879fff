package dev.shardkit.sharding.internal.sim;

/**
 * What the cluster simulation's entity type does beyond the plainest model, per seed: whether it
 * remembers its entities ({@code -Dsim.remember}) and whether its regions have an active-entity
 * limit ({@code -Dsim.limit}). Each flag is {@code auto} (the default: drawn per seed, on in about
 * 3 seeds of 10, independently), {@code on} or {@code off} for every seed. The regression seeds run
 * {@link #AS_FOUND}, the model they were found in.
 *
 * @param remembering the type remembers its entities ({@link SimRememberStore})
 * @param limited the regions have an active-entity limit, drawn per seed
 */
record SimModel(boolean remembering, boolean limited) {

  /** The model the regression seeds were found in: neither. */
  static final SimModel AS_FOUND = new SimModel(false, false);

  private static final String REMEMBER = System.getProperty("sim.remember", "auto");
  private static final String LIMIT = System.getProperty("sim.limit", "auto");

  /** Seed {@code seed}'s model, as the flags say. */
  static SimModel of(long seed) {
    SimRng draw = new SimRng(seed ^ 0x5eedL);
    return new SimModel(flag("sim.remember", REMEMBER, draw, "cluster.remember"),
        flag("sim.limit", LIMIT, draw, "cluster.limit"));
  }

  /** The flags that give a replay the same models as this run, empty with the defaults. */
  static String replayFlags() {
    return (REMEMBER.equals("auto") ? "" : " -Dsim.remember=" + REMEMBER)
        + (LIMIT.equals("auto") ? "" : " -Dsim.limit=" + LIMIT);
  }

  /** The flags that replay a seed in this model. */
  String flags() {
    return " -Dsim.remember=" + (remembering ? "on" : "off") + " -Dsim.limit=" + (limited ? "on" : "off");
  }

  private static boolean flag(String name, String value, SimRng draw, String purpose) {
    return switch (value) {
      case "on" -> true;
      case "off" -> false;
      case "auto" -> draw.chance(purpose, 0.3);
      default -> throw new IllegalArgumentException("-D" + name + " must be auto, on or off, not " + value);
    };
  }

  @Override
  public String toString() {
    return (remembering ? "remembering entities" : "") + (remembering && limited ? ", " : "")
        + (limited ? "an active-entity limit" : "");
  }
}
