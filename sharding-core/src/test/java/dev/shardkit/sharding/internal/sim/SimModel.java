package dev.shardkit.sharding.internal.sim;

/**
 * What the cluster simulation's entity types do beyond the plainest model, per seed: how many
 * entity types the cluster runs ({@code -Dsim.types}: {@code auto}, drawn per seed, one in 6 seeds
 * of 10, two in 3, three in 1; or a number from 1 to 3), and, for each type, whether it remembers
 * its entities ({@code -Dsim.remember}), whether its regions have an active-entity limit ({@code
 * -Dsim.limit}), and whether links send what a removed node had not acknowledged to the shards'
 * next homes ({@code -Dsim.redeliver}, {@code redeliver-unacknowledged-after-crash}). Each of
 * these flags is {@code auto} (the default: drawn per seed and type, on in about 3 of 10,
 * independently), {@code on} or {@code off} for every seed and type. And, for the whole network,
 * whether the coordinators' stores are slow ({@code -Dsim.slowStores}: 20 ms to 1 s a call instead
 * of 1-50 ms), and whether the network's outbound queues are small ({@code -Dsim.smallQueues}, both
 * {@code auto} as the others):
 * Artery drops a message that finds its association's queue full, and a small queue makes that
 * happen to the protocol's messages (homes, hand-offs, batches, acknowledgements, the gate
 * keepers' questions) on these seeds. The regression seeds run their own models: {@link
 * #AS_FOUND} unless said otherwise.
 *
 * @param remembering the first type remembers its entities ({@link SimRememberStore})
 * @param limited the first type's regions have an active-entity limit, drawn per seed
 * @param redelivering what a removed node had not acknowledged goes to the first type's next homes (at least once)
 * @param others the models of the other entity types, each with no others of its own
 * @param smallQueues the network's queue per pair of nodes holds 4-64 messages, not thousands
 * @param slowStores every type's coordinator store takes 20 ms to 1 s a call
 */
record SimModel(boolean remembering, boolean limited, boolean redelivering, java.util.List<SimModel> others,
    boolean smallQueues, boolean slowStores) {

  /** The model the first regression seeds were found in: one type, none of these. */
  static final SimModel AS_FOUND = new SimModel(false, false, false);

  private static final String TYPES = System.getProperty("sim.types", "auto");
  private static final String REMEMBER = System.getProperty("sim.remember", "auto");
  private static final String LIMIT = System.getProperty("sim.limit", "auto");
  private static final String REDELIVER = System.getProperty("sim.redeliver", "auto");
  private static final String SMALL_QUEUES = System.getProperty("sim.smallQueues", "auto");
  private static final String SLOW_STORES = System.getProperty("sim.slowStores", "auto");

  SimModel {
    others = java.util.List.copyOf(others);
  }

  /** One entity type's model, on a network with queues of the usual size. */
  SimModel(boolean remembering, boolean limited, boolean redelivering) {
    this(remembering, limited, redelivering, java.util.List.of());
  }

  /** Several entity types' model, on a network with queues of the usual size. */
  SimModel(boolean remembering, boolean limited, boolean redelivering, java.util.List<SimModel> others) {
    this(remembering, limited, redelivering, others, false, false);
  }

  /** Seed {@code seed}'s model, as the flags say. */
  static SimModel of(long seed) {
    SimModel first = ofType(seed, 0);
    int types = switch (TYPES) {
      case "auto" -> {
        double p = new SimRng(seed ^ 0x5eedL).stream("cluster.types").nextDouble();
        yield p < 0.6 ? 1 : p < 0.9 ? 2 : 3;
      }
      case "1", "2", "3" -> Integer.parseInt(TYPES);
      default -> throw new IllegalArgumentException("-Dsim.types must be auto, 1, 2 or 3, not " + TYPES);
    };
    java.util.List<SimModel> others = new java.util.ArrayList<>();
    for (int t = 1; t < types; t++) {
      others.add(ofType(seed, t));
    }
    SimRng draw = new SimRng(seed ^ 0x5eedL);
    boolean smallQueues = flag("sim.smallQueues", SMALL_QUEUES, draw, "cluster.smallQueues");
    boolean slowStores = flag("sim.slowStores", SLOW_STORES, draw, "cluster.slowStores");
    return new SimModel(first.remembering, first.limited, first.redelivering, others, smallQueues, slowStores);
  }

  /** The model of the type with index {@code type}: the first type draws as when there was one type. */
  private static SimModel ofType(long seed, int type) {
    SimRng draw = new SimRng(seed ^ 0x5eedL ^ (0x9e3779b97f4a7c15L * type));
    return new SimModel(flag("sim.remember", REMEMBER, draw, "cluster.remember"),
        flag("sim.limit", LIMIT, draw, "cluster.limit"), flag("sim.redeliver", REDELIVER, draw, "cluster.redeliver"));
  }

  /** How many entity types the cluster runs. */
  int types() {
    return 1 + others.size();
  }

  /** The model of the type with index {@code type} (0 is the first). */
  SimModel type(int type) {
    return type == 0 ? new SimModel(remembering, limited, redelivering) : others.get(type - 1);
  }

  /** Whether some type remembers its entities. */
  boolean anyRemembering() {
    return remembering || others.stream().anyMatch(SimModel::remembering);
  }

  /** Whether some type redelivers after a crash. */
  boolean anyRedelivering() {
    return redelivering || others.stream().anyMatch(SimModel::redelivering);
  }

  /** The flags that give a replay the same models as this run, empty with the defaults. */
  static String replayFlags() {
    return (TYPES.equals("auto") ? "" : " -Dsim.types=" + TYPES)
        + (REMEMBER.equals("auto") ? "" : " -Dsim.remember=" + REMEMBER)
        + (LIMIT.equals("auto") ? "" : " -Dsim.limit=" + LIMIT)
        + (REDELIVER.equals("auto") ? "" : " -Dsim.redeliver=" + REDELIVER)
        + (SMALL_QUEUES.equals("auto") ? "" : " -Dsim.smallQueues=" + SMALL_QUEUES)
        + (SLOW_STORES.equals("auto") ? "" : " -Dsim.slowStores=" + SLOW_STORES);
  }

  /**
   * The flags that replay a seed in this model: exactly for one type; with several, the flags force
   * the first type's model on every type (a regression seed with several types runs its model as
   * kept in the test, not from these flags).
   */
  String flags() {
    return " -Dsim.types=" + types() + " -Dsim.remember=" + onOff(remembering) + " -Dsim.limit=" + onOff(limited)
        + " -Dsim.redeliver=" + onOff(redelivering) + " -Dsim.smallQueues=" + onOff(smallQueues)
        + " -Dsim.slowStores=" + onOff(slowStores);
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
    if (smallQueues || slowStores) {
      String rest = new SimModel(remembering, limited, redelivering, others).toString();
      String network = smallQueues && slowStores ? "small queues, slow stores" : smallQueues ? "small queues"
          : "slow stores";
      return network + (rest.isEmpty() ? "" : "; " + rest);
    }
    if (!others.isEmpty()) {
      java.util.StringJoiner types = new java.util.StringJoiner("; ", types() + " entity types: ", "");
      for (int t = 0; t < types(); t++) {
        String one = type(t).toString();
        types.add(CoordinatorOnlySim.typeName(t) + " " + (one.isEmpty() ? "plain" : one));
      }
      return types.toString();
    }
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
