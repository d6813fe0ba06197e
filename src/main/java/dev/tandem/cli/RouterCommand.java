package dev.tandem.cli;

import dev.tandem.config.ConfigException;
import dev.tandem.config.ConfigValidator;
import dev.tandem.config.EngineKind;
import dev.tandem.config.RouterConfig;
import dev.tandem.config.RouterMode;
import dev.tandem.supervisor.SupervisorVerticle;
import io.vertx.core.Vertx;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tandem router MODEL}: {@code mlc_llm router}'s flags and defaults, plus Tandem's. Checks
 * the configuration (exit code 2 with a one-line message), starts every engine and the router, and
 * serves until SIGTERM or Ctrl-C, which stop every engine within the grace period. A failed
 * start-up exits with code 1 after stopping whatever it had started.
 */
@Command(name = "router", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Start engines and the router (mlc_llm router compatible).",
    footer = {"", "Put MODEL before the list options (--endpoint-ports 8080 8081 would take it as a"
        + " port). Options given on the command line override --config."})
public final class RouterCommand implements Callable<Integer> {

  @Parameters(index = "0", arity = "0..1", paramLabel = "MODEL",
      description = "Model folder (Hugging Face layout with tokenizer.json).")
  String model;

  @Option(names = "--config", paramLabel = "FILE",
      description = "JSON configuration (see conf/router.json); flags override its values.")
  Path configFile;

  @Option(names = "--model-lib", description = "Compiled model library (MLC engines).")
  String modelLib;

  @Option(names = "--router-mode", paramLabel = "disagg|round-robin",
      description = "Default: disagg.")
  String routerMode;

  @Option(names = "--router-host", description = "Default: 127.0.0.1.")
  String routerHost;

  @Option(names = "--router-port", description = "Default: 8000.")
  Integer routerPort;

  @Option(names = "--endpoint-hosts", paramLabel = "HOST[,HOST...]", split = ",",
      description = "Comma-separated; one host applies to every port. Default: 127.0.0.1.")
  List<String> endpointHosts;

  @Option(names = "--endpoint-ports", arity = "1..*", paramLabel = "PORT",
      description = "Space-separated. Default: 8080.")
  List<Integer> endpointPorts;

  @Option(names = "--endpoint-num-gpus", arity = "1..*", paramLabel = "N",
      description = "Space-separated devices per endpoint; one value applies to all. Default: 1.")
  List<Integer> endpointNumGpus;

  @Option(names = "--enable-prefix-cache", description = "Engines get --prefix-cache-mode radix.")
  Boolean enablePrefixCache;

  @Option(names = "--pd-balance-factor", paramLabel = "F",
      description = "Fraction of the prompt's tail prefilled on the decode engine, in [0, 1)."
          + " Default: 0.0.")
  Double pdBalanceFactor;

  @Option(names = "--engine", paramLabel = "builtin|mlc|sim", description = "Default: builtin.")
  String engine;

  @Option(names = "--endpoint-roles", arity = "1..*", split = ",", paramLabel = "ROLE",
      description = "prefill|decode|both per endpoint. Default: disagg: endpoint 0 prefill, the"
          + " rest decode; round-robin: both.")
  List<String> endpointRoles;

  @Option(names = "--log-dir", description = "Engine log files. Default: logs.")
  String logDir;

  @Option(names = "--startup-timeout", converter = DurationConverter.class, paramLabel = "TIME",
      description = "Seconds (or 500ms, 2m) for all engines to be ready. Default: 120.")
  Duration startupTimeout;

  @Option(names = "--health-interval", converter = DurationConverter.class, paramLabel = "TIME",
      description = "Between health probes. Default: 2.")
  Duration healthInterval;

  @Option(names = "--health-timeout", converter = DurationConverter.class, paramLabel = "TIME",
      description = "Of one health probe. Default: 3.")
  Duration healthTimeout;

  @Option(names = "--health-failures", paramLabel = "N",
      description = "Failed probes in a row that make an engine unhealthy. Default: 3.")
  Integer healthFailures;

  @Option(names = "--stop-grace", converter = DurationConverter.class, paramLabel = "TIME",
      description = "Between SIGTERM and SIGKILL when stopping engines. Default: 10.")
  Duration stopGrace;

  @Option(names = "--python", description = "Python with mlc_llm (MLC engines). Default: python3.")
  String python;

  @Option(names = "--engine-overrides", paramLabel = "K=V;...",
      description = "Appended to the engines' --overrides.")
  String engineOverrides;

  @Option(names = "--engine-jvm-opts", paramLabel = "OPTS",
      description = "JVM options of builtin engines, space-separated; use = for values starting"
          + " with -, e.g. --engine-jvm-opts=-Xmx512m.")
  String engineJvmOpts;

  @Option(names = "--engine-cds", negatable = true, fallbackValue = "true",
      description = "Builtin engines share a class-data archive (written at the first fleet's stop)."
          + " Default: on; --no-engine-cds turns it off.")
  Boolean engineCds;

  @Option(names = "--sim-profile", paramLabel = "NAME|FILE",
      description = "With --engine sim: the simulated GPU and model (h100-llama3-8b,"
          + " h100-llama3-70b-tp4, a100-llama2-13b or a JSON file). Default: h100-llama3-8b.")
  String simProfile;

  @Option(names = "--policy", paramLabel = "cache-aware|least-loaded",
      description = "Engine choice. Default: cache-aware with --enable-prefix-cache, else least-loaded.")
  String policy;

  @Option(names = "--cache-threshold", paramLabel = "F",
      description = "Cache-aware: follow the prefix only if it covers more than F of the prompt. Default: 0.5.")
  Double cacheThreshold;

  @Option(names = "--balance-abs", paramLabel = "N",
      description = "Cache-aware: load imbalance (max - min requests) beyond which the least-loaded engine wins. Default: 64.")
  Integer balanceAbs;

  @Option(names = "--balance-rel", paramLabel = "R",
      description = "Cache-aware: ... and max > R x min. Default: 1.5.")
  Double balanceRel;

  @Option(names = "--pd-policy", paramLabel = "static|adaptive",
      description = "Disagg: static (--pd-balance-factor for all) or adaptive per request. Default: static.")
  String pdPolicy;

  @Option(names = "--pd-short-prompt", paramLabel = "TOKENS",
      description = "Adaptive: uncached prompt tokens at or below which D prefills alone. Default: 256.")
  Integer pdShortPrompt;

  @Option(names = "--pd-prefill-busy", paramLabel = "N",
      description = "Adaptive: a prefill queue of N requests sends new ones to D alone. Default: 4.")
  Integer pdPrefillBusy;

  @Option(names = "--print-config", description = "Print the resolved JSON configuration and exit.")
  boolean printConfig;

  @Override
  public Integer call() {
    RouterConfig config;
    try {
      config = toConfig();
      ConfigValidator.validateAll(config);
    } catch (ConfigException e) {
      System.err.println("tandem router: " + e.getMessage());
      return ConfigException.EXIT_CODE;
    }
    if (printConfig) {
      System.out.println(config.toJson().encodePrettily());
      return 0;
    }
    return serve(config);
  }

  /** The configuration: the --config file if given, then every flag that was given. */
  RouterConfig toConfig() {
    RouterConfig c = configFile == null ? new RouterConfig() : readFile(configFile);
    if (model != null) c.setModel(model);
    if (modelLib != null) c.setModelLib(modelLib);
    if (routerMode != null) c.setRouterMode(RouterMode.parse(routerMode));
    if (routerHost != null) c.setRouterHost(routerHost);
    if (routerPort != null) c.setRouterPort(routerPort);
    if (endpointHosts != null) c.setEndpointHosts(endpointHosts.stream().map(String::trim).toList());
    if (endpointPorts != null) c.setEndpointPorts(endpointPorts);
    if (endpointNumGpus != null) c.setEndpointNumGpus(endpointNumGpus);
    if (enablePrefixCache != null) c.setEnablePrefixCache(enablePrefixCache);
    if (pdBalanceFactor != null) c.setPdBalanceFactor(pdBalanceFactor);
    if (engine != null) c.setEngine(EngineKind.parse(engine));
    if (endpointRoles != null) c.setEndpointRoles(RouterConfig.parseRoles(endpointRoles));
    if (logDir != null) c.setLogDir(logDir);
    if (startupTimeout != null) c.setStartupTimeout(startupTimeout);
    if (healthInterval != null) c.setHealthInterval(healthInterval);
    if (healthTimeout != null) c.setHealthTimeout(healthTimeout);
    if (healthFailures != null) c.setHealthFailures(healthFailures);
    if (stopGrace != null) c.setStopGrace(stopGrace);
    if (python != null) c.setPython(python);
    if (engineOverrides != null) c.setEngineOverrides(engineOverrides);
    if (engineJvmOpts != null) {
      c.setEngineJvmOpts(Arrays.stream(engineJvmOpts.trim().split("\\s+"))
          .filter(s -> !s.isEmpty()).toList());
    }
    if (engineCds != null) c.setEngineCds(engineCds);
    if (simProfile != null) c.setSimProfile(simProfile);
    if (policy != null) c.setPolicy(policy);
    if (cacheThreshold != null) c.setCacheThreshold(cacheThreshold);
    if (balanceAbs != null) c.setBalanceAbs(balanceAbs);
    if (balanceRel != null) c.setBalanceRel(balanceRel);
    if (pdPolicy != null) c.setPdPolicy(pdPolicy);
    if (pdShortPrompt != null) c.setPdShortPrompt(pdShortPrompt);
    if (pdPrefillBusy != null) c.setPdPrefillBusy(pdPrefillBusy);
    return c;
  }

  private static RouterConfig readFile(Path file) {
    try {
      return RouterConfig.fromJson(new JsonObject(Files.readString(file)));
    } catch (IOException e) {
      throw new ConfigException("cannot read " + file + ": " + e.getMessage());
    } catch (DecodeException e) {
      throw new ConfigException(file + " is not valid JSON: " + e.getMessage().lines().findFirst()
          .orElse(""));
    }
  }

  /** Starts the fleet and blocks until the JVM is asked to stop (the shutdown hook stops it). */
  private static int serve(RouterConfig config) {
    Vertx vertx = Vertx.vertx();
    CountDownLatch closed = new CountDownLatch(1);
    Duration closeWait = config.getStopGrace().plusSeconds(10);
    Thread hook = new Thread(() -> close(vertx, closeWait, closed), "tandem-router-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      vertx.deployVerticle(new SupervisorVerticle(config)).toCompletionStage().toCompletableFuture()
          .get();
    } catch (ExecutionException e) {
      // A configuration problem found only now (a port taken since the check) is still a usage error.
      boolean usage = e.getCause() instanceof ConfigException;
      System.err.println("tandem router: " + (usage ? "" : "start-up failed: ")
          + e.getCause().getMessage());
      close(vertx, closeWait, closed);
      removeHook(hook);
      return usage ? ConfigException.EXIT_CODE : 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      close(vertx, closeWait, closed);
      removeHook(hook);
      return 1;
    }
    try {
      closed.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  /** Closing Vert.x undeploys the supervisor, which stops every engine within the grace period. */
  private static void close(Vertx vertx, Duration wait, CountDownLatch closed) {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(wait.toMillis(),
          TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      System.err.println("tandem router: stopping: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closed.countDown();
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // already shutting down: the hook runs anyway
    }
  }

  /** Seconds by default ({@code 120}, {@code 0.5}), or with a unit: {@code 500ms}, {@code 2s}, {@code 1m}. */
  static final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      String v = value.trim().toLowerCase(java.util.Locale.ROOT);
      double factor = 1000;
      if (v.endsWith("ms")) {
        factor = 1;
        v = v.substring(0, v.length() - 2);
      } else if (v.endsWith("s")) {
        v = v.substring(0, v.length() - 1);
      } else if (v.endsWith("m")) {
        factor = 60_000;
        v = v.substring(0, v.length() - 1);
      }
      try {
        return Duration.ofMillis(Math.round(Double.parseDouble(v) * factor));
      } catch (NumberFormatException e) {
        throw new picocli.CommandLine.TypeConversionException("'" + value
            + "' is not a duration (seconds, or with ms/s/m)");
      }
    }
  }
}
