package dev.tandem.config;

import static dev.tandem.config.Rule.atLeast;
import static dev.tandem.config.Rule.between;
import static dev.tandem.config.Rule.each;
import static dev.tandem.config.Rule.notBlank;
import static dev.tandem.config.Rule.notEmpty;
import static dev.tandem.config.Rule.notNegative;
import static dev.tandem.config.Rule.positive;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * Everything {@code tandem router} needs: {@code mlc_llm router}'s options with its defaults, plus
 * Tandem's (engine kind, roles, logs, timeouts), plus the router verticle's
 * ({@link RouterOptions}, whose keys sit in the same flat JSON object). Read from JSON
 * ({@code conf/router.json}, the Vert.x launcher's {@code -conf}) or set from flags (see
 * {@code tandem router --help}); cross-option rules are {@link ConfigValidator}'s; resolved into
 * one {@link EndpointConfig} per engine by {@link #endpoints()}.
 *
 * <p>List broadcasting: a single {@code endpointHosts}, {@code endpointNumGpus} or
 * {@code endpointRoles} value applies to every port (so {@code --endpoint-ports 8080 8081 8082}
 * alone means three engines on 127.0.0.1 with one device each; MLC asserts equal lengths
 * instead). Lists of more than one value must have one value per port.
 */
public final class RouterConfig extends OptionValues<RouterConfig> {

  private static final OptionTable FLEET = new OptionTable("Fleet");

  public static final Option<String> MODEL = FLEET.add(Option.string("model", null, null)
      .rule(notBlank()).label("MODEL").help("model folder with tokenizer.json; required"));
  public static final Option<String> MODEL_LIB = FLEET.add(Option.string("modelLib",
      "--model-lib", null).label("PATH").help("compiled model library (MLC engines)"));
  public static final Option<List<String>> ENDPOINT_HOSTS = FLEET.add(Option.of("endpointHosts",
      "--endpoint-hosts", ValueType.listOf(ValueType.STRING, ","), List.of("127.0.0.1"))
      .rule(each(notBlank())).label("HOST").help("comma-separated, as MLC; one host applies to"
          + " every port"));
  public static final Option<List<Integer>> ENDPOINT_PORTS = FLEET.add(Option.of("endpointPorts",
      "--endpoint-ports", ValueType.listOf(ValueType.INTEGER, null), List.of(8080))
      .rule(notEmpty()).rule(each(between(1, 65535))).label("PORT")
      .help("space-separated, as MLC; one engine per port"));
  public static final Option<List<Integer>> ENDPOINT_NUM_GPUS = FLEET.add(Option.of(
      "endpointNumGpus", "--endpoint-num-gpus", ValueType.listOf(ValueType.INTEGER, null),
      List.of(1)).rule(each(atLeast(1))).help("space-separated devices per endpoint; one value"
          + " applies to all"));
  /** Empty: endpoint 0 prefills and the rest decode (disagg), every engine does both (round-robin). */
  public static final Option<List<EngineRole>> ENDPOINT_ROLES = FLEET.add(Option.of(
      "endpointRoles", "--endpoint-roles", ValueType.listOf(ValueType.choice(
          List.of(EngineRole.values()), r -> r.name().toLowerCase(Locale.ROOT)), ","), List.of())
      .label("ROLE").help("prefill, decode or both per endpoint; none: as MLC (disagg: endpoint"
          + " 0 prefills, the rest decode; round-robin: every engine does both)"));
  public static final Option<Boolean> ENABLE_PREFIX_CACHE = FLEET.add(Option.bool(
      "enablePrefixCache", "--enable-prefix-cache", false)
      .help("engines get --prefix-cache-mode radix, else disable"));
  public static final Option<EngineKind> ENGINE = FLEET.add(Option.of("engine", "--engine",
      ValueType.choice(List.of(EngineKind.values()), EngineKind::wireName), EngineKind.BUILTIN)
      .help("the engine server launched per endpoint"));
  public static final Option<String> LOG_DIR = FLEET.add(Option.string("logDir", "--log-dir",
      "logs").rule(notBlank()).label("DIR").help("one engine-N.log per engine, appended"
          + " across restarts"));
  public static final Option<String> FLEET_SECRET_FILE = FLEET.add(Option.string(
      "fleetSecretFile", "--fleet-secret-file", null).rule(notBlank()).label("FILE")
      .help("the fleet's secret (the file's first line), which builtin engines listening beyond"
          + " loopback require on every call; none: a random one per start (then a new router"
          + " restarts the engines tandem nodes kept running instead of adopting them)"));
  /** MLC's readiness probe gives up after about 120 s; so do we, but for real. */
  public static final Option<Duration> STARTUP_TIMEOUT = FLEET.add(Option.millis(
      "startupTimeoutMs", "--startup-timeout", Duration.ofSeconds(120)).rule(positive())
      .help("every engine READY within it"));
  public static final Option<Duration> HEALTH_INTERVAL = FLEET.add(Option.millis(
      "healthIntervalMs", "--health-interval", Duration.ofSeconds(2)).rule(positive())
      .help("between health probes (never overlapping)"));
  public static final Option<Duration> HEALTH_TIMEOUT = FLEET.add(Option.millis(
      "healthTimeoutMs", "--health-timeout", Duration.ofSeconds(3)).rule(positive())
      .help("one health probe"));
  public static final Option<Integer> HEALTH_FAILURES = FLEET.add(Option.integer(
      "healthFailures", "--health-failures", 3).rule(atLeast(1))
      .help("failed probes in a row that make an engine UNHEALTHY"));
  public static final Option<Duration> LOAD_REPORT_INTERVAL = FLEET.add(Option.millis(
      "loadReportIntervalMs", "--load-report-interval", Duration.ofSeconds(1)).rule(notNegative())
      .help("how often each engine's load is read and published on the bus; 0: never"));
  public static final Option<Duration> RESTART_BACKOFF = FLEET.add(Option.millis(
      "restartBackoffMs", "--restart-backoff", Duration.ofMillis(500)).rule(positive())
      .help("first wait before restarting an engine, doubling up to --restart-backoff-max"));
  public static final Option<Duration> RESTART_BACKOFF_MAX = FLEET.add(Option.millis(
      "restartBackoffMaxMs", "--restart-backoff-max", Duration.ofSeconds(30)).rule(positive())
      .help("longest wait between restarts; READY this long resets the count"));
  public static final Option<Integer> RESTART_LIMIT = FLEET.add(Option.integer("restartLimit",
      "--restart-limit", 5).rule(atLeast(0))
      .help("consecutive restarts before FAILED (a manual restart revives it)"));
  /** MLC waits 10 s after its SIGKILL. */
  public static final Option<Duration> STOP_GRACE = FLEET.add(Option.millis("stopGraceMs",
      "--stop-grace", Duration.ofSeconds(10)).rule(positive()).help("SIGTERM, then SIGKILL"));
  public static final Option<String> PYTHON = FLEET.add(Option.string("python", "--python",
      "python3").rule(notBlank()).label("PATH").help("python with mlc_llm (MLC engines); its"
          + " site-packages are searched for NVSHMEM"));
  public static final Option<String> ENGINE_OVERRIDES = FLEET.add(Option.string(
      "engineOverrides", "--engine-overrides", null).label("K=V;...")
      .help("appended to the engines' --overrides"));
  public static final Option<List<String>> ENGINE_JVM_OPTS = FLEET.add(Option.of("engineJvmOpts",
      "--engine-jvm-opts", ValueType.WORDS, List.of()).help("builtin engines' JVM options,"
          + " space-separated; use = for values starting with -: --engine-jvm-opts=-Xmx512m"));
  /** Builtin engines share a class-data archive (see {@code EngineCds}): faster, cheaper starts. */
  public static final Option<Boolean> ENGINE_CDS = FLEET.add(Option.bool("engineCds",
      "--engine-cds", true).help("builtin engines share a class-data archive"));

  public static final Option<String> SIM_PROFILE = FLEET.add(Option.string("simProfile",
      "--sim-profile", "h100-llama3-8b").rule(notBlank()).label("NAME|FILE")
      .help("sim engines: the simulated GPU and model, a profile in the jar or a JSON file"
          + " (docs/sim.md)"));
  /**
   * NVSHMEM admits no late member, so a crashed MLC engine cannot rejoin its world; this makes a
   * builtin world behave the same (for tests of the re-form, and to run MLC's rules on a CPU).
   */
  public static final Option<Boolean> FIXED_WORLD = FLEET.add(Option.bool("fixedWorld",
      "--fixed-world", false).help("the builtin engines' KV world refuses late joiners, as"
          + " NVSHMEM does (always so for mlc): a dead engine makes the supervisor re-form it"));
  public static final Option<Duration> REFORM_DRAIN = FLEET.add(Option.millis("reformDrainMs",
      "--reform-drain", Duration.ofSeconds(30)).rule(notNegative())
      .help("world re-form: how long an engine may finish its requests before it restarts in the"
          + " new world (what is left fails over)"));

  /** The fleet's options, the cluster's, then the router's. */
  public static final OptionTable OPTIONS = OptionTable.of("tandem router", FLEET,
      ClusterOptions.OPTIONS, RouterOptions.OPTIONS);

  /** Every option at its default (no model yet). */
  public RouterConfig() {
    super(OPTIONS);
  }

  public RouterConfig(RouterConfig other) {
    super(OPTIONS);
    copyFrom(other);
  }

  /** Reads the JSON form; see {@link OptionValues}. */
  public RouterConfig(JsonObject json) {
    super(OPTIONS, json);
  }

  /** Same as {@code new RouterConfig(json)}. */
  public static RouterConfig fromJson(JsonObject json) {
    return new RouterConfig(json);
  }

  /** The event-bus addresses of this fleet ({@code --fleet}). */
  public Addresses addresses() {
    return Addresses.of(get(RouterOptions.FLEET_NAME));
  }

  /** The router verticle's options: every {@link RouterOptions} value of this configuration. */
  public RouterOptions routerOptions() {
    RouterOptions options = RouterOptions.of(this);
    if (options.get(RouterOptions.POLICY) == null) {
      options.set(RouterOptions.POLICY, get(ENABLE_PREFIX_CACHE) ? "cache-aware" : "least-loaded");
    }
    return options;
  }

  /**
   * One endpoint per port, in order, with hosts, GPU counts and roles broadcast when given once,
   * PE starts as prefix sums of GPU counts and roles defaulted by mode. Lists that cannot be
   * matched up are a {@link ConfigException}: the one place that rule is checked.
   */
  public List<EndpointConfig> endpoints() {
    List<Integer> ports = get(ENDPOINT_PORTS);
    int n = ports.size();
    List<String> hosts = get(ENDPOINT_HOSTS);
    List<Integer> gpus = get(ENDPOINT_NUM_GPUS);
    List<EngineRole> roles = get(ENDPOINT_ROLES);
    if (!fits(hosts, n) || !fits(gpus, n)) {
      throw new ConfigException("--endpoint-hosts (" + hosts.size() + " values), --endpoint-ports ("
          + n + ") and --endpoint-num-gpus (" + gpus.size() + ") must have the same length"
          + " (a single host or GPU count applies to every port)");
    }
    if (!roles.isEmpty() && !fits(roles, n)) {
      throw new ConfigException("--endpoint-roles has " + roles.size() + " values but"
          + " --endpoint-ports has " + n + "; give one role per port");
    }
    roles = roles.isEmpty() ? defaultRoles(get(RouterOptions.ROUTER_MODE), n) : broadcast(roles, n);
    hosts = broadcast(hosts, n);
    gpus = broadcast(gpus, n);
    List<EndpointConfig> endpoints = new ArrayList<>(n);
    int peStart = 0;
    for (int i = 0; i < n; i++) {
      endpoints.add(new EndpointConfig(i, hosts.get(i), ports.get(i), gpus.get(i), peStart,
          roles.get(i)));
      peStart += gpus.get(i);
    }
    return List.copyOf(endpoints);
  }

  /** Total PEs of the world: the sum of every endpoint's GPU count (MLC's {@code npes}). */
  public int totalPes() {
    return endpoints().stream().mapToInt(EndpointConfig::numGpus).sum();
  }

  /** MLC's layout: endpoint 0 prefills, the others decode; round-robin engines do both. */
  public static List<EngineRole> defaultRoles(RouterMode mode, int n) {
    List<EngineRole> roles = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      roles.add(mode == RouterMode.ROUND_ROBIN ? EngineRole.BOTH
          : i == 0 ? EngineRole.PREFILL : EngineRole.DECODE);
    }
    return roles;
  }

  private static boolean fits(List<?> values, int n) {
    return values.size() == 1 || values.size() == n;
  }

  private static <T> List<T> broadcast(List<T> values, int n) {
    return values.size() == 1 ? Collections.nCopies(n, values.get(0)) : values;
  }
}
