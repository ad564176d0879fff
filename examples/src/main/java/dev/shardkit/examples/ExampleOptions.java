package dev.shardkit.examples;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The command line of the {@link Node} and {@link Client} programs, and the configuration it makes.
 *
 * <p>Every option can be given as a flag ({@code --port 2552}) or as an environment variable
 * ({@code SHARDKIT_PORT=2552}); the flag wins. Whatever is given overrides the configuration
 * file ({@code node.conf} in the examples' resources unless {@code --config} names another),
 * which in turn overrides the libraries' {@code reference.conf}. Java system properties
 * ({@code -Dpekko.cluster.roles.0=backend}) override the file too, but not a flag or variable.
 *
 * <p>A malformed value fails with an {@link IllegalArgumentException} whose message names the
 * flag or variable it came from.
 */
public final class ExampleOptions {
  /** The actor system's name; every node of one cluster must use the same. */
  public static final String SYSTEM_NAME = "examples";

  /** The configuration file used when no {@code --config} is given. */
  public static final String DEFAULT_CONFIG = "node.conf";

  /** One option: its flag, its environment variable and what it means. */
  public record Option(String flag, String variable, String meaning) {
    /** Whether the option takes no value. */
    boolean isSwitch() {
      return variable == null;
    }
  }

  public static final Option PORT = new Option("--port", "SHARDKIT_PORT",
      "the node's TCP port (0 picks a free one)");
  public static final Option HOSTNAME = new Option("--hostname", "SHARDKIT_HOSTNAME",
      "the address other nodes reach this one at");
  public static final Option SEED_NODES = new Option("--seed-nodes", "SHARDKIT_SEED_NODES",
      "comma-separated host:port (or pekko://" + SYSTEM_NAME + "@host:port) of the nodes to join");
  public static final Option ROLES = new Option("--roles", "SHARDKIT_ROLES",
      "comma-separated cluster roles of this node");
  public static final Option CONFIG = new Option("--config", "SHARDKIT_CONFIG",
      "a configuration file, or a resource of the examples (default " + DEFAULT_CONFIG + ")");
  public static final Option HELP = new Option("--help", null, "print this and exit");

  /** The options every example program has. */
  public static final List<Option> NODE_OPTIONS = List.of(PORT, HOSTNAME, SEED_NODES, ROLES, CONFIG, HELP);

  private static final Pattern HOST_PORT = Pattern.compile("[A-Za-z0-9._-]+:\\d{1,5}");
  private static final Pattern ADDRESS = Pattern.compile("pekko://[A-Za-z0-9][A-Za-z0-9_-]*@[A-Za-z0-9._-]+:\\d{1,5}");
  private static final Pattern ROLE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  private final String program;
  private final List<Option> options;
  /** Option → its value and where it came from (the flag or the variable). */
  private final Map<Option, Given> given;

  private record Given(String value, String source) {}

  private ExampleOptions(String program, List<Option> options, Map<Option, Given> given) {
    this.program = program;
    this.options = options;
    this.given = given;
  }

  /**
   * Reads {@code args} (flags) and {@code environment} (variables) for these options.
   *
   * @throws IllegalArgumentException for an unknown flag or a flag without its value
   */
  public static ExampleOptions parse(String program, List<Option> options, String[] args,
      Map<String, String> environment) {
    Map<Option, Given> given = new LinkedHashMap<>();
    for (Option o : options) {
      String value = o.isSwitch() ? null : environment.get(o.variable());
      if (value != null && !value.isBlank()) {
        given.put(o, new Given(value.trim(), "environment variable " + o.variable()));
      }
    }
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String flag = arg;
      String value = null;
      int eq = arg.indexOf('=');
      if (arg.startsWith("--") && eq > 0) {
        flag = arg.substring(0, eq);
        value = arg.substring(eq + 1);
      }
      String name = flag;
      Option o = options.stream().filter(x -> x.flag().equals(name)).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("unknown argument [" + arg + "]"));
      if (o.isSwitch()) {
        given.put(o, new Given("true", o.flag()));
        continue;
      }
      if (value == null) {
        if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
          throw new IllegalArgumentException(o.flag() + " needs a value: " + o.meaning());
        }
        value = args[++i];
      }
      given.put(o, new Given(value.trim(), o.flag()));
    }
    return new ExampleOptions(program, options, given);
  }

  /** Whether {@code --help} was given. */
  public boolean help() {
    return given.containsKey(HELP);
  }

  /** The option's value, if given as a flag or variable. */
  public Optional<String> value(Option option) {
    return Optional.ofNullable(given.get(option)).map(Given::value);
  }

  /**
   * The option's value as a whole number in {@code [min, max]}.
   *
   * @throws IllegalArgumentException naming the flag or variable if it is not one
   */
  public Optional<Integer> intValue(Option option, int min, int max) {
    Given g = given.get(option);
    if (g == null) {
      return Optional.empty();
    }
    int n;
    try {
      n = Integer.parseInt(g.value());
    } catch (NumberFormatException e) {
      n = Integer.MIN_VALUE;
    }
    if (n < min || n > max) {
      throw new IllegalArgumentException(g.source() + " must be a whole number from " + min + " to " + max
          + " (" + option.meaning() + "), got [" + g.value() + "]");
    }
    return Optional.of(n);
  }

  /**
   * The node's configuration: the flags and variables given, then {@code programDefaults} (HOCON,
   * what this program sets unless told otherwise), then Java system properties, then the
   * configuration file, then every library's {@code reference.conf}.
   *
   * @throws IllegalArgumentException naming the flag or variable of a malformed value, or the
   *     configuration file if it cannot be found or read
   */
  public Config config(String programDefaults) {
    Map<String, Object> overrides = new LinkedHashMap<>();
    intValue(PORT, 0, 65535).ifPresent(p -> overrides.put("pekko.remote.artery.canonical.port", p));
    value(HOSTNAME).ifPresent(h -> {
      if (!h.matches("[A-Za-z0-9._:-]+")) {
        throw new IllegalArgumentException(given.get(HOSTNAME).source() + " must be a host name or IP address, got ["
            + h + "]");
      }
      overrides.put("pekko.remote.artery.canonical.hostname", h);
    });
    value(SEED_NODES).ifPresent(s -> overrides.put("pekko.cluster.seed-nodes", seedNodes(s)));
    value(ROLES).ifPresent(r -> overrides.put("pekko.cluster.roles", roles(r)));
    Config fromFile = configFile();
    Config config;
    try {
      config = ConfigFactory.parseMap(overrides, "command line and environment")
          .withFallback(ConfigFactory.parseString(programDefaults))
          .withFallback(ConfigFactory.load(fromFile));
    } catch (ConfigException e) {
      throw new IllegalArgumentException("the configuration " + configName() + " is not valid: " + e.getMessage(), e);
    }
    return config;
  }

  private String configName() {
    return value(CONFIG).orElse(DEFAULT_CONFIG);
  }

  /** The configuration file: a file if one exists at the path, otherwise a resource of the examples. */
  private Config configFile() {
    String name = configName();
    ConfigParseOptions strict = ConfigParseOptions.defaults().setAllowMissing(false);
    try {
      Path file = Path.of(name);
      if (Files.isRegularFile(file)) {
        return ConfigFactory.parseFile(file.toFile(), strict);
      }
      return ConfigFactory.parseResources(ExampleOptions.class.getClassLoader(), name, strict);
    } catch (ConfigException.IO e) {
      throw new IllegalArgumentException(sourceOf(CONFIG) + ": no file or resource [" + name + "]", e);
    } catch (ConfigException e) {
      throw new IllegalArgumentException("the configuration [" + name + "] cannot be read: " + e.getMessage(), e);
    }
  }

  private String sourceOf(Option option) {
    Given g = given.get(option);
    return g == null ? "the default " + option.flag() : g.source();
  }

  private List<String> seedNodes(String value) {
    List<String> seeds = new ArrayList<>();
    for (String s : value.split(",")) {
      String seed = s.trim();
      if (HOST_PORT.matcher(seed).matches()) {
        seed = "pekko://" + SYSTEM_NAME + "@" + seed;
      }
      if (!ADDRESS.matcher(seed).matches()) {
        throw new IllegalArgumentException(given.get(SEED_NODES).source() + " must be comma-separated host:port "
            + "or pekko://" + SYSTEM_NAME + "@host:port, got [" + s.trim() + "] in [" + value + "]");
      }
      if (!seed.startsWith("pekko://" + SYSTEM_NAME + "@")) {
        throw new IllegalArgumentException(given.get(SEED_NODES).source() + ": [" + seed + "] names another actor "
            + "system; the example nodes are all called " + SYSTEM_NAME);
      }
      seeds.add(seed);
    }
    return seeds;
  }

  private List<String> roles(String value) {
    List<String> roles = Arrays.stream(value.split(",")).map(String::trim).toList();
    for (String r : roles) {
      if (!ROLE.matcher(r).matches()) {
        throw new IllegalArgumentException(given.get(ROLES).source() + " must be comma-separated role names "
            + "(letters, digits, . _ -), got [" + value + "]");
      }
    }
    return roles;
  }

  /** What the program accepts, for {@code --help} and after an error. */
  public String usage() {
    StringBuilder sb = new StringBuilder("usage: " + program + " [options]   (each flag, or its environment variable)\n");
    for (Option o : options) {
      String left = o.isSwitch() ? o.flag() : o.flag() + " VALUE";
      sb.append(String.format("  %-18s %-21s %s%n", left, o.isSwitch() ? "" : o.variable(), o.meaning()));
    }
    return sb.toString();
  }

  /** Prints {@code message} and the usage to stderr and exits with status 2. */
  static void exitWithUsage(String program, List<Option> options, String message) {
    System.err.println(program + ": " + message);
    System.err.print(new ExampleOptions(program, options, Map.of()).usage());
    System.err.flush();
    System.exit(2);
  }
}
