package dev.shardkit.sharding.internal.sim;

/**
 * What the cluster simulation's entity type does beyond the plainest model, per seed: whether it
 * remembers its entities ({@code -Dsim.remember}), whether its regions have an active-entity
 * limit ({@code -Dsim.limit}), and whether links send what a removed node had not acknowledged to
 * the shards' next homes ({@code -Dsim.redeliver}, {@code redeliver-unacknowledged-after-crash}).
 * Each flag is {@code auto} (the default: drawn per seed, on in about 3 seeds of 10,
 * independently), {@code on} or {@code off} for every seed. The regression seeds run their own
 * models: {@link #AS_FOUND} unless said otherwise.
 *
 * @param remembering the type remembers its entities ({@link SimRememberStore})
 * @param limited the regions have an active-entity limit, drawn per seed
 * @param redelivering what a removed node had not acknowledged goes to the next homes (at least once)
 */
record SimModel(boolean remembering, boolean limited, boolean redelivering) {

  /** The model the first regression seeds were found in: none of these. */
  static final SimModel AS_FOUND = new SimModel(false, false, false);

  private static final String REMEMBER = System.getProperty("sim.remember", "auto");
  private static final String LIMIT = System.getProperty("sim.limit", "auto");
  private static final String REDELIVER = System.getProperty("sim.redeliver", "auto");

  /** Seed {@code seed}'s model, as the flags say. */
  static SimModel of(long seed) {
    SimRng draw = new SimRng(seed ^ 0x5eedL);
    return new SimModel(flag("sim.remember", REMEMBER, draw, "cluster.remember"),
        flag("sim.limit", LIMIT, draw, "cluster.limit"), flag("sim.redeliver", REDELIVER, draw, "cluster.redeliver"));
  }

  /** The flags that give a replay the same models as this run, empty with the defaults. */
  static String replayFlags() {
    return (REMEMBER.equals("auto") ? "" : " -Dsim.remember=" + REMEMBER)
        + (LIMIT.equals("auto") ? "" : " -Dsim.limit=" + LIMIT)
        + (REDELIVER.equals("auto") ? "" : " -Dsim.redeliver=" + REDELIVER);
  }

  /** The flags that replay a seed in this model. */
  String flags() {
    return " -Dsim.remember=" + onOff(remembering) + " -Dsim.limit=" + onOff(limited) + " -Dsim.redeliver="
        + onOff(redelivering);
  }

  private static String onOff(boolean on) {
    return on ? "on" : "off";
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
    java.util.StringJoiner model = new java.util.StringJoiner(", ");
    if (remembering) {
      model.add("remembering entities");
    }
    if (limited) {
      model.add("an active-entity limit");
    }
    if (redelivering) {
      model.add("redelivery after a crash");
    }
    return model.toString();
  }
}
