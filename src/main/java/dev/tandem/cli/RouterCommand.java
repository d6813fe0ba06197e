package dev.tandem.cli;

import dev.tandem.config.ConfigException;
import dev.tandem.config.ConfigValidator;
import dev.tandem.config.NetworkTransports;
import dev.tandem.config.RouterConfig;
import dev.tandem.config.RouterOptions;
import dev.tandem.supervisor.SupervisorVerticle;
import io.vertx.core.Vertx;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tandem router MODEL}: {@code mlc_llm router}'s flags and defaults, plus Tandem's, one per
 * option of {@link RouterConfig} (made by {@link ConfigFlags}). Checks the configuration (exit code
 * 2 with a one-line message), starts every engine and the router, and serves until SIGTERM or
 * Ctrl-C, which stop every engine within the grace period. A failed start-up exits with code 1
 * after stopping whatever it had started. With {@code --cluster} its Vert.x joins a Hazelcast
 * cluster first ({@link ClusterVertx}), so clustered Vert.x applications reach the fleet's bus API.
 */
@Command(name = "router", mixinStandardHelpOptions = true, sortOptions = false,
    modelTransformer = ConfigFlags.class, customSynopsis = "tandem router MODEL [OPTIONS]",
    description = "Start engines and the router (mlc_llm router compatible).",
    footer = {"", "Durations are seconds (0.5) or carry a unit (500ms, 2s, 1m); in JSON they are"
        + " whole milliseconds. Put MODEL before the list options (--endpoint-ports 8080 8081 would"
        + " take it as a port). Options given on the command line override --config."})
public final class RouterCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Option(names = "--config", paramLabel = "FILE",
      description = "JSON configuration (see conf/router.json); flags override its values.")
  Path configFile;

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
    RouterConfig config = configFile == null ? new RouterConfig() : readFile(configFile);
    ConfigFlags.apply(spec.commandLine().getParseResult(), config);
    return config;
  }

  private static RouterConfig readFile(Path file) {
    JsonObject json;
    try {
      json = new JsonObject(Files.readString(file));
    } catch (IOException e) {
      throw new ConfigException("cannot read " + file + ": " + e.getMessage());
    } catch (DecodeException e) {
      throw new ConfigException(file + " is not valid JSON: " + e.getMessage().lines().findFirst()
          .orElse(""));
    }
    try {
      return RouterConfig.fromJson(json);
    } catch (ConfigException e) {
      throw new ConfigException(file + ": " + e.getMessage());
    }
  }

  /** Starts the fleet and blocks until the JVM is asked to stop (the shutdown hook stops it). */
  private static int serve(RouterConfig config) {
    Vertx vertx;
    try {
      vertx = ClusterVertx.startFor("tandem router", config,
          config.get(RouterOptions.NETWORK_TRANSPORT));
    } catch (ClusterVertx.JoinFailed e) {
      return e.exitCode;
    }
    org.slf4j.LoggerFactory.getLogger(RouterCommand.class).info("network transport: {}",
        NetworkTransports.describe(vertx, config.get(RouterOptions.NETWORK_TRANSPORT)));
    CountDownLatch closed = new CountDownLatch(1);
    Duration closeWait = config.get(RouterConfig.STOP_GRACE).plusSeconds(10);
    SupervisorVerticle supervisor = new SupervisorVerticle(config);
    Thread hook = new Thread(() -> ClusterVertx.drainThenClose("tandem router", supervisor, vertx,
        config.get(RouterOptions.DRAIN_TIMEOUT), closeWait, closed), "tandem-router-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      vertx.deployVerticle(supervisor).toCompletionStage().toCompletableFuture().get();
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
    ClusterVertx.close("tandem router", vertx, wait, closed);
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // already shutting down: the hook runs anyway
    }
  }
}
