package dev.tandem.config;

import dev.tandem.bus.EngineRole;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Everything {@code tandem router} needs: {@code mlc_llm router}'s options with its defaults, plus
 * Tandem's (engine kind, roles, logs, timeouts). Options are set fluently, written to and read from
 * JSON ({@code conf/router.json}, the Vert.x launcher's {@code -conf}), checked by
 * {@link ConfigValidator} and resolved into one {@link EndpointConfig} per engine by
 * {@link #endpoints()}.
 *
 * <p>List broadcasting: a single {@code endpointHosts} or {@code endpointNumGpus} value applies to
 * every port (so {@code --endpoint-ports 8080 8081 8082} alone means three engines on 127.0.0.1 with
 * one device each; MLC asserts equal lengths instead). Lists of more than one value must have one
 * value per port.
 */
public final class RouterConfig {
  public static final String DEFAULT_MODEL_LIB = null;
  public static final RouterMode DEFAULT_ROUTER_MODE = RouterMode.DISAGG;
  public static final String DEFAULT_ROUTER_HOST = "127.0.0.1";
  public static final int DEFAULT_ROUTER_PORT = 8000;
  public static final List<String> DEFAULT_ENDPOINT_HOSTS = List.of("127.0.0.1");
  public static final List<Integer> DEFAULT_ENDPOINT_PORTS = List.of(8080);
  public static final List<Integer> DEFAULT_ENDPOINT_NUM_GPUS = List.of(1);
  /** Empty: endpoint 0 prefills and the rest decode (disagg), every engine does both (round-robin). */
  public static final List<EngineRole> DEFAULT_ENDPOINT_ROLES = List.of();
  public static final boolean DEFAULT_ENABLE_PREFIX_CACHE = false;
  public static final double DEFAULT_PD_BALANCE_FACTOR = 0.0;
  public static final EngineKind DEFAULT_ENGINE = EngineKind.BUILTIN;
  public static final String DEFAULT_LOG_DIR = "logs";
  /** MLC's readiness probe gives up after about 120 s; so do we, but for real. */
  public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(120);
  public static final Duration DEFAULT_HEALTH_INTERVAL = Duration.ofSeconds(2);
  public static final Duration DEFAULT_HEALTH_TIMEOUT = Duration.ofSeconds(3);
  /** Consecutive failed health probes after which a running engine is UNHEALTHY. */
  public static final int DEFAULT_HEALTH_FAILURES = 3;
  /** How often each engine's load is read and published on the bus (0: never). */
  public static final Duration DEFAULT_LOAD_REPORT_INTERVAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_RESTART_BACKOFF = Duration.ofMillis(500);
  public static final Duration DEFAULT_RESTART_BACKOFF_MAX = Duration.ofSeconds(30);
  /** Consecutive failed restarts after which an engine is FAILED (a manual restart revives it). */
  public static final int DEFAULT_RESTART_LIMIT = 5;
  /** Time between SIGTERM and SIGKILL when stopping an engine (MLC waits 10 s after its SIGKILL). */
  public static final Duration DEFAULT_STOP_GRACE = Duration.ofSeconds(10);
  public static final String DEFAULT_PYTHON = "python3";
  public static final String DEFAULT_ENGINE_OVERRIDES = null;
  public static final List<String> DEFAULT_ENGINE_JVM_OPTS = List.of();
  /** Builtin engines share a class-data archive (see {@code EngineCds}): faster, cheaper starts. */
  public static final boolean DEFAULT_ENGINE_CDS = true;
  /** Simulated engines ({@code engine: sim}): the GPU and model they imitate (a name or a file). */
  public static final String DEFAULT_SIM_PROFILE = "h100-llama3-8b";
  /** Null: cache-aware when the prefix cache is on, else least-loaded. */
  public static final String DEFAULT_POLICY = null;
  public static final double DEFAULT_CACHE_THRESHOLD = RouterOptions.DEFAULT_CACHE_THRESHOLD;
  public static final int DEFAULT_BALANCE_ABS = RouterOptions.DEFAULT_BALANCE_ABS;
  public static final double DEFAULT_BALANCE_REL = RouterOptions.DEFAULT_BALANCE_REL;
  public static final String DEFAULT_PD_POLICY = RouterOptions.DEFAULT_PD_POLICY;
  public static final int DEFAULT_PD_SHORT_PROMPT = RouterOptions.DEFAULT_PD_SHORT_PROMPT;
  public static final int DEFAULT_PD_PREFILL_BUSY = RouterOptions.DEFAULT_PD_PREFILL_BUSY;

  private String model;
  private String modelLib = DEFAULT_MODEL_LIB;
  private RouterMode routerMode = DEFAULT_ROUTER_MODE;
  private String routerHost = DEFAULT_ROUTER_HOST;
  private int routerPort = DEFAULT_ROUTER_PORT;
  private List<String> endpointHosts = DEFAULT_ENDPOINT_HOSTS;
  private List<Integer> endpointPorts = DEFAULT_ENDPOINT_PORTS;
  private List<Integer> endpointNumGpus = DEFAULT_ENDPOINT_NUM_GPUS;
  private List<EngineRole> endpointRoles = DEFAULT_ENDPOINT_ROLES;
  private boolean enablePrefixCache = DEFAULT_ENABLE_PREFIX_CACHE;
  private double pdBalanceFactor = DEFAULT_PD_BALANCE_FACTOR;
  private EngineKind engine = DEFAULT_ENGINE;
  private String logDir = DEFAULT_LOG_DIR;
  private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
  private Duration healthInterval = DEFAULT_HEALTH_INTERVAL;
  private Duration healthTimeout = DEFAULT_HEALTH_TIMEOUT;
  private int healthFailures = DEFAULT_HEALTH_FAILURES;
  private Duration loadReportInterval = DEFAULT_LOAD_REPORT_INTERVAL;
  private Duration restartBackoff = DEFAULT_RESTART_BACKOFF;
  private Duration restartBackoffMax = DEFAULT_RESTART_BACKOFF_MAX;
  private int restartLimit = DEFAULT_RESTART_LIMIT;
  private Duration stopGrace = DEFAULT_STOP_GRACE;
  private String python = DEFAULT_PYTHON;
  private String engineOverrides = DEFAULT_ENGINE_OVERRIDES;
  private List<String> engineJvmOpts = DEFAULT_ENGINE_JVM_OPTS;
  private boolean engineCds = DEFAULT_ENGINE_CDS;
  private String simProfile = DEFAULT_SIM_PROFILE;
  private String policy = DEFAULT_POLICY;
  private double cacheThreshold = DEFAULT_CACHE_THRESHOLD;
  private int balanceAbs = DEFAULT_BALANCE_ABS;
  private double balanceRel = DEFAULT_BALANCE_REL;
  private String pdPolicy = DEFAULT_PD_POLICY;
  private int pdShortPrompt = DEFAULT_PD_SHORT_PROMPT;
  private int pdPrefillBusy = DEFAULT_PD_PREFILL_BUSY;

  public RouterConfig() {}

  public RouterConfig(RouterConfig other) {
    this(other.toJson());
  }

  /**
   * Reads the JSON form (keys as in {@link #toJson()}; absent keys keep their defaults). Wrong
   * types or values throw {@link ConfigException} naming the key.
   */
  public RouterConfig(JsonObject json) {
    JsonReader in = new JsonReader(json);
    model = in.string("model", null);
    modelLib = in.string("modelLib", DEFAULT_MODEL_LIB);
    routerMode = RouterMode.parse(in.string("routerMode", DEFAULT_ROUTER_MODE.wireName()));
    routerHost = in.string("routerHost", DEFAULT_ROUTER_HOST);
    routerPort = in.integer("routerPort", DEFAULT_ROUTER_PORT);
    endpointHosts = in.strings("endpointHosts", DEFAULT_ENDPOINT_HOSTS);
    endpointPorts = in.integers("endpointPorts", DEFAULT_ENDPOINT_PORTS);
    endpointNumGpus = in.integers("endpointNumGpus", DEFAULT_ENDPOINT_NUM_GPUS);
    endpointRoles = parseRoles(in.strings("endpointRoles", List.of()));
    enablePrefixCache = in.bool("enablePrefixCache", DEFAULT_ENABLE_PREFIX_CACHE);
    pdBalanceFactor = in.number("pdBalanceFactor", DEFAULT_PD_BALANCE_FACTOR);
    engine = EngineKind.parse(in.string("engine", DEFAULT_ENGINE.wireName()));
    logDir = in.string("logDir", DEFAULT_LOG_DIR);
    startupTimeout = in.millis("startupTimeoutMs", DEFAULT_STARTUP_TIMEOUT);
    healthInterval = in.millis("healthIntervalMs", DEFAULT_HEALTH_INTERVAL);
    healthTimeout = in.millis("healthTimeoutMs", DEFAULT_HEALTH_TIMEOUT);
    healthFailures = in.integer("healthFailures", DEFAULT_HEALTH_FAILURES);
    loadReportInterval = in.millis("loadReportIntervalMs", DEFAULT_LOAD_REPORT_INTERVAL);
    restartBackoff = in.millis("restartBackoffMs", DEFAULT_RESTART_BACKOFF);
    restartBackoffMax = in.millis("restartBackoffMaxMs", DEFAULT_RESTART_BACKOFF_MAX);
    restartLimit = in.integer("restartLimit", DEFAULT_RESTART_LIMIT);
    stopGrace = in.millis("stopGraceMs", DEFAULT_STOP_GRACE);
    python = in.string("python", DEFAULT_PYTHON);
    engineOverrides = in.string("engineOverrides", DEFAULT_ENGINE_OVERRIDES);
    engineJvmOpts = in.strings("engineJvmOpts", DEFAULT_ENGINE_JVM_OPTS);
    engineCds = in.bool("engineCds", DEFAULT_ENGINE_CDS);
    simProfile = in.string("simProfile", DEFAULT_SIM_PROFILE);
    policy = in.string("policy", DEFAULT_POLICY);
    cacheThreshold = in.number("cacheThreshold", DEFAULT_CACHE_THRESHOLD);
    balanceAbs = in.integer("balanceAbs", DEFAULT_BALANCE_ABS);
    balanceRel = in.number("balanceRel", DEFAULT_BALANCE_REL);
    pdPolicy = in.string("pdPolicy", DEFAULT_PD_POLICY);
    pdShortPrompt = in.integer("pdShortPrompt", DEFAULT_PD_SHORT_PROMPT);
    pdPrefillBusy = in.integer("pdPrefillBusy", DEFAULT_PD_PREFILL_BUSY);
    in.rejectUnknownKeys();
  }

  /** Same as {@code new RouterConfig(json)}. */
  public static RouterConfig fromJson(JsonObject json) {
    return new RouterConfig(json);
  }

  /** Every option, defaults included, so a written file documents itself. */
  public JsonObject toJson() {
    JsonObject json = new JsonObject();
    json.put("model", model);
    json.put("modelLib", modelLib);
    json.put("routerMode", routerMode.wireName());
    json.put("routerHost", routerHost);
    json.put("routerPort", routerPort);
    json.put("endpointHosts", new JsonArray(new ArrayList<>(endpointHosts)));
    json.put("endpointPorts", new JsonArray(new ArrayList<>(endpointPorts)));
    json.put("endpointNumGpus", new JsonArray(new ArrayList<>(endpointNumGpus)));
    JsonArray roles = new JsonArray();
    endpointRoles.forEach(role -> roles.add(role.name().toLowerCase(Locale.ROOT)));
    json.put("endpointRoles", roles);
    json.put("enablePrefixCache", enablePrefixCache);
    json.put("pdBalanceFactor", pdBalanceFactor);
    json.put("engine", engine.wireName());
    json.put("logDir", logDir);
    json.put("startupTimeoutMs", startupTimeout.toMillis());
    json.put("healthIntervalMs", healthInterval.toMillis());
    json.put("healthTimeoutMs", healthTimeout.toMillis());
    json.put("healthFailures", healthFailures);
    json.put("loadReportIntervalMs", loadReportInterval.toMillis());
    json.put("restartBackoffMs", restartBackoff.toMillis());
    json.put("restartBackoffMaxMs", restartBackoffMax.toMillis());
    json.put("restartLimit", restartLimit);
    json.put("stopGraceMs", stopGrace.toMillis());
    json.put("python", python);
    json.put("engineOverrides", engineOverrides);
    json.put("engineJvmOpts", new JsonArray(new ArrayList<>(engineJvmOpts)));
    json.put("engineCds", engineCds);
    json.put("simProfile", simProfile);
    json.put("policy", policy);
    json.put("cacheThreshold", cacheThreshold);
    json.put("balanceAbs", balanceAbs);
    json.put("balanceRel", balanceRel);
    json.put("pdPolicy", pdPolicy);
    json.put("pdShortPrompt", pdShortPrompt);
    json.put("pdPrefillBusy", pdPrefillBusy);
    return json;
  }

  /**
   * One endpoint per port, in order, with hosts and GPU counts broadcast when given once, PE
   * starts as prefix sums of GPU counts and roles defaulted by mode. Throws {@link ConfigException}
   * when the lists cannot be matched up (see {@link ConfigValidator}).
   */
  public List<EndpointConfig> endpoints() {
    int n = endpointPorts.size();
    List<String> hosts = broadcast("--endpoint-hosts", endpointHosts, n);
    List<Integer> gpus = broadcast("--endpoint-num-gpus", endpointNumGpus, n);
    List<EngineRole> roles = endpointRoles.isEmpty() ? defaultRoles(routerMode, n)
        : broadcast("--endpoint-roles", endpointRoles, n);
    List<EndpointConfig> endpoints = new ArrayList<>(n);
    int peStart = 0;
    for (int i = 0; i < n; i++) {
      endpoints.add(new EndpointConfig(i, hosts.get(i), endpointPorts.get(i), gpus.get(i), peStart,
          roles.get(i)));
      peStart += gpus.get(i);
    }
    return List.copyOf(endpoints);
  }

  /** The router verticle's options this configuration implies (the rest keep their defaults). */
  public RouterOptions routerOptions() {
    return new RouterOptions().setMode(routerMode).setHost(routerHost).setPort(routerPort)
        .setPdBalanceFactor(pdBalanceFactor).setPolicy(effectivePolicy())
        .setCacheThreshold(cacheThreshold).setBalanceAbs(balanceAbs).setBalanceRel(balanceRel)
        .setPdPolicy(pdPolicy).setPdShortPrompt(pdShortPrompt).setPdPrefillBusy(pdPrefillBusy);
  }

  /** The routing policy: as set, or cache-aware when engines keep a prefix cache. */
  public String effectivePolicy() {
    return policy != null ? policy : enablePrefixCache ? "cache-aware" : "least-loaded";
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

  public static List<EngineRole> parseRoles(List<String> names) {
    List<EngineRole> roles = new ArrayList<>(names.size());
    for (String name : names) {
      try {
        roles.add(EngineRole.valueOf(name.trim().toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new ConfigException("endpoint role must be prefill, decode or both, not '" + name + "'");
      }
    }
    return List.copyOf(roles);
  }

  private static <T> List<T> broadcast(String flag, List<T> values, int n) {
    if (values.size() == 1 && n > 1) {
      return java.util.Collections.nCopies(n, values.get(0));
    }
    if (values.size() != n) {
      throw new ConfigException(flag + " has " + values.size() + " values but --endpoint-ports has "
          + n + "; give one value for all or one per port");
    }
    return values;
  }

  // ---- fluent accessors ----

  public String getModel() { return model; }
  public RouterConfig setModel(String model) { this.model = model; return this; }
  public String getModelLib() { return modelLib; }
  public RouterConfig setModelLib(String modelLib) { this.modelLib = modelLib; return this; }
  public RouterMode getRouterMode() { return routerMode; }
  public RouterConfig setRouterMode(RouterMode mode) { this.routerMode = Objects.requireNonNull(mode); return this; }
  public String getRouterHost() { return routerHost; }
  public RouterConfig setRouterHost(String host) { this.routerHost = Objects.requireNonNull(host); return this; }
  public int getRouterPort() { return routerPort; }
  public RouterConfig setRouterPort(int port) { this.routerPort = port; return this; }
  public List<String> getEndpointHosts() { return endpointHosts; }
  public RouterConfig setEndpointHosts(List<String> hosts) { this.endpointHosts = List.copyOf(hosts); return this; }
  public List<Integer> getEndpointPorts() { return endpointPorts; }
  public RouterConfig setEndpointPorts(List<Integer> ports) { this.endpointPorts = List.copyOf(ports); return this; }
  public List<Integer> getEndpointNumGpus() { return endpointNumGpus; }
  public RouterConfig setEndpointNumGpus(List<Integer> gpus) { this.endpointNumGpus = List.copyOf(gpus); return this; }
  public List<EngineRole> getEndpointRoles() { return endpointRoles; }
  public RouterConfig setEndpointRoles(List<EngineRole> roles) { this.endpointRoles = List.copyOf(roles); return this; }
  public boolean isEnablePrefixCache() { return enablePrefixCache; }
  public RouterConfig setEnablePrefixCache(boolean enable) { this.enablePrefixCache = enable; return this; }
  public double getPdBalanceFactor() { return pdBalanceFactor; }
  public RouterConfig setPdBalanceFactor(double factor) { this.pdBalanceFactor = factor; return this; }
  public EngineKind getEngine() { return engine; }
  public RouterConfig setEngine(EngineKind engine) { this.engine = Objects.requireNonNull(engine); return this; }
  public String getLogDir() { return logDir; }
  public RouterConfig setLogDir(String logDir) { this.logDir = Objects.requireNonNull(logDir); return this; }
  public Duration getStartupTimeout() { return startupTimeout; }
  public RouterConfig setStartupTimeout(Duration timeout) { this.startupTimeout = Objects.requireNonNull(timeout); return this; }
  public Duration getHealthInterval() { return healthInterval; }
  public RouterConfig setHealthInterval(Duration interval) { this.healthInterval = Objects.requireNonNull(interval); return this; }
  public Duration getHealthTimeout() { return healthTimeout; }
  public RouterConfig setHealthTimeout(Duration timeout) { this.healthTimeout = Objects.requireNonNull(timeout); return this; }
  public int getHealthFailures() { return healthFailures; }
  public RouterConfig setHealthFailures(int failures) { this.healthFailures = failures; return this; }
  public Duration getLoadReportInterval() { return loadReportInterval; }
  public RouterConfig setLoadReportInterval(Duration interval) { this.loadReportInterval = Objects.requireNonNull(interval); return this; }
  public Duration getRestartBackoff() { return restartBackoff; }
  public RouterConfig setRestartBackoff(Duration backoff) { this.restartBackoff = Objects.requireNonNull(backoff); return this; }
  public Duration getRestartBackoffMax() { return restartBackoffMax; }
  public RouterConfig setRestartBackoffMax(Duration max) { this.restartBackoffMax = Objects.requireNonNull(max); return this; }
  public int getRestartLimit() { return restartLimit; }
  public RouterConfig setRestartLimit(int limit) { this.restartLimit = limit; return this; }
  public Duration getStopGrace() { return stopGrace; }
  public RouterConfig setStopGrace(Duration grace) { this.stopGrace = Objects.requireNonNull(grace); return this; }
  public String getPython() { return python; }
  public RouterConfig setPython(String python) { this.python = Objects.requireNonNull(python); return this; }
  public String getEngineOverrides() { return engineOverrides; }
  public RouterConfig setEngineOverrides(String overrides) { this.engineOverrides = overrides; return this; }
  public List<String> getEngineJvmOpts() { return engineJvmOpts; }
  public RouterConfig setEngineJvmOpts(List<String> opts) { this.engineJvmOpts = List.copyOf(opts); return this; }
  public boolean isEngineCds() { return engineCds; }
  public RouterConfig setEngineCds(boolean cds) { this.engineCds = cds; return this; }
  public String getPolicy() { return policy; }
  public RouterConfig setPolicy(String policy) { this.policy = policy; return this; }
  public double getCacheThreshold() { return cacheThreshold; }
  public RouterConfig setCacheThreshold(double t) { this.cacheThreshold = t; return this; }
  public int getBalanceAbs() { return balanceAbs; }
  public RouterConfig setBalanceAbs(int n) { this.balanceAbs = n; return this; }
  public double getBalanceRel() { return balanceRel; }
  public RouterConfig setBalanceRel(double r) { this.balanceRel = r; return this; }
  public String getPdPolicy() { return pdPolicy; }
  public RouterConfig setPdPolicy(String p) { this.pdPolicy = Objects.requireNonNull(p); return this; }
  public int getPdShortPrompt() { return pdShortPrompt; }
  public RouterConfig setPdShortPrompt(int n) { this.pdShortPrompt = n; return this; }
  public int getPdPrefillBusy() { return pdPrefillBusy; }
  public RouterConfig setPdPrefillBusy(int n) { this.pdPrefillBusy = n; return this; }
  public String getSimProfile() { return simProfile; }
  public RouterConfig setSimProfile(String profile) { this.simProfile = Objects.requireNonNull(profile); return this; }

  @Override
  public boolean equals(Object o) {
    return o instanceof RouterConfig other && toJson().equals(other.toJson());
  }

  @Override
  public int hashCode() {
    return toJson().hashCode();
  }

  @Override
  public String toString() {
    return toJson().encode();
  }
}
