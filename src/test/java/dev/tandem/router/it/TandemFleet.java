package dev.tandem.router.it;

import static dev.tandem.config.RouterConfig.ENDPOINT_PORTS;
import static dev.tandem.config.RouterConfig.ENGINE_JVM_OPTS;
import static dev.tandem.config.RouterConfig.ENGINE_OVERRIDES;
import static dev.tandem.config.RouterConfig.HEALTH_INTERVAL;
import static dev.tandem.config.RouterConfig.HEALTH_TIMEOUT;
import static dev.tandem.config.RouterConfig.LOAD_REPORT_INTERVAL;
import static dev.tandem.config.RouterConfig.LOG_DIR;
import static dev.tandem.config.RouterConfig.MODEL;
import static dev.tandem.config.RouterConfig.RESTART_BACKOFF;
import static dev.tandem.config.RouterConfig.STARTUP_TIMEOUT;
import static dev.tandem.config.RouterConfig.STOP_GRACE;
import static dev.tandem.config.RouterOptions.ROUTER_HOST;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;

import dev.tandem.bus.Addresses;
import dev.tandem.config.RouterConfig;
import dev.tandem.config.RouterMode;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.RouterVerticle;
import dev.tandem.supervisor.SupervisorVerticle;
import dev.tandem.supervisor.TokenizerLoader;
import dev.tandem.testing.Eventually;
import dev.tandem.testing.FreePorts;
import dev.tandem.testing.PrometheusSamples;
import dev.tandem.testing.TinyModel;
import dev.tandem.tokenizer.TextTokenizer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A real fleet for process tests: the supervisor, deployed on the test's Vert.x, starts 1 prefill
 * + 2 decode builtin engines ({@code tandem serve} from the tandem jar, the tiny model) in one KV
 * world and deploys the RouterVerticle in disagg mode; a round-robin router can be added in front
 * of the same engines. Shared by the tests of a class (starting engines is the slow part). Start
 * and stop answer futures (for {@code @BeforeAll}/{@code @AfterAll} with a VertxTestContext); the
 * HTTP helpers block, as the clients of the tests do.
 */
final class TandemFleet {

  final Vertx vertx;
  /** The model folder the engines serve: the shared tiny model unless the fleet options set another. */
  final Path model;
  final RouterConfig config;
  final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private volatile TextTokenizer tokenizer;
  private String supervisor;

  private TandemFleet(Vertx vertx, Path dir, String engineOverrides,
      UnaryOperator<RouterConfig> fleetOptions) throws IOException {
    this.vertx = vertx;
    int[] ports = FreePorts.of(4);
    config = fleetOptions.apply(new RouterConfig().set(MODEL, TinyModel.shared().toString())
        .set(ROUTER_PORT, ports[3])
        .set(ENDPOINT_PORTS, List.of(ports[0], ports[1], ports[2]))
        .set(ROUTER_MODE, RouterMode.DISAGG)
        .set(LOG_DIR, dir.resolve("logs").toString()).set(ENGINE_JVM_OPTS, List.of("-Xmx256m"))
        .set(ENGINE_OVERRIDES, engineOverrides)
        .set(STARTUP_TIMEOUT, Duration.ofSeconds(120)).set(HEALTH_INTERVAL, Duration.ofMillis(500))
        .set(HEALTH_TIMEOUT, Duration.ofSeconds(2)).set(STOP_GRACE, Duration.ofSeconds(5))
        .set(RESTART_BACKOFF, Duration.ofMillis(200)).set(LOAD_REPORT_INTERVAL, Duration.ofMillis(250)));
    model = Path.of(config.get(MODEL));
  }

  /** Deploys the supervisor with its engines and disagg router; logs go to {@code dir/logs}. */
  static Future<TandemFleet> start(Vertx vertx, Path dir, String engineOverrides,
      UnaryOperator<RouterOptions> routerOptions) throws IOException {
    return start(vertx, dir, engineOverrides, routerOptions, c -> c);
  }

  /** The same fleet with some of its own options changed (e.g. a fixed world, another model). */
  static Future<TandemFleet> start(Vertx vertx, Path dir, UnaryOperator<RouterConfig> fleetOptions)
      throws IOException {
    return start(vertx, dir, null, o -> o, fleetOptions);
  }

  private static Future<TandemFleet> start(Vertx vertx, Path dir, String engineOverrides,
      UnaryOperator<RouterOptions> routerOptions, UnaryOperator<RouterConfig> fleetOptions)
      throws IOException {
    TandemFleet fleet = new TandemFleet(vertx, dir, engineOverrides, fleetOptions);
    SupervisorVerticle sv = new SupervisorVerticle(fleet.config, (cfg, tok) -> {
      fleet.tokenizer = tok;
      return RouterVerticle.forModelDir(routerOptions.apply(cfg.routerOptions()),
          cfg.get(MODEL), Path.of(cfg.get(MODEL)), cfg.get(ENGINE_OVERRIDES), tok);
    }, TokenizerLoader.djl(), null);
    return vertx.deployVerticle(sv).map(id -> {
      fleet.supervisor = id;
      return fleet;
    });
  }

  int routerPort() {
    return config.get(ROUTER_PORT);
  }

  /** The routers' tokenizer, as the supervisor loaded it. */
  TextTokenizer tokenizer() {
    return tokenizer;
  }

  int enginePort(int id) {
    return config.get(ENDPOINT_PORTS).get(id);
  }

  /**
   * Deploys another router in front of the same engines (it learns them from the bus) and answers
   * its port once it is ready.
   */
  Future<Integer> deployRouter(RouterOptions options) {
    RouterVerticle router = RouterVerticle.forModelDir(
        options.set(ROUTER_HOST, "127.0.0.1").set(ROUTER_PORT, 0),
        model.toString(), model, config.get(ENGINE_OVERRIDES), tokenizer);
    WebClient web = WebClient.create(vertx);
    return vertx.deployVerticle(router)
        .compose(id -> Eventually.until(vertx, Duration.ofSeconds(10),
            "router on " + router.actualPort() + " ready",
            () -> web.get(router.actualPort(), "127.0.0.1", "/ready").send()
                .map(r -> r.statusCode() == 200)))
        .eventually(() -> {
          web.close();
          return Future.succeededFuture();
        })
        .map(v -> router.actualPort());
  }

  HttpResponse<String> get(int port, String path) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException("GET " + path + " on " + port + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  HttpResponse<String> post(int port, String path, String body) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .timeout(Duration.ofSeconds(120)).header("content-type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException("POST " + path + " on " + port + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  HttpResponse<String> delete(int port, String path) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .timeout(Duration.ofSeconds(60)).DELETE().build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException("DELETE " + path + " on " + port + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** An engine's (or router's) /metrics samples. */
  Map<String, Double> metrics(int port) {
    return PrometheusSamples.parse(get(port, "/metrics").body());
  }

  double engineMetric(int engineId, String name) {
    return metrics(enginePort(engineId)).getOrDefault(name, 0.0);
  }

  /** The pid of engine {@code id}'s process, found by its port on the engines' command lines. */
  long enginePid(int id) {
    String flag = "--port " + enginePort(id);
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().commandLine().map(c -> c.contains(model.toString())
            && (c.contains(flag + " ") || c.endsWith(flag))).orElse(false))
        .mapToLong(ProcessHandle::pid).findFirst()
        .orElseThrow(() -> new AssertionError("no process of engine " + id + " (" + flag + ")"));
  }

  /**
   * The supervisor's whole answer to {@link Addresses#fleetQuery()}: every engine's status with its
   * pid, generation and world, the mode, the engine kind and the world (epoch, uid, fixed). Read
   * through the disagg router's {@code GET /fleet}, which relays that query, so that blocking test
   * bodies read it as they read everything else: over plain HTTP.
   */
  JsonObject fleetView() {
    HttpResponse<String> r = get(routerPort(), "/fleet");
    if (r.statusCode() != 200) {
      throw new IllegalStateException("GET /fleet: " + r.statusCode() + " " + r.body());
    }
    return new JsonObject(r.body());
  }

  /** The supervisor's view of every engine (status, pid, generation), in engine id order. */
  JsonArray fleet() {
    return fleetView().getJsonArray("engines");
  }

  /** Sum of the router's per-engine in-flight counters, from its /metrics page. */
  double routerInFlight(int port) {
    return metrics(port).entrySet().stream().filter(e -> e.getKey().startsWith("tandem_inflight{"))
        .mapToDouble(Map.Entry::getValue).sum();
  }

  /** Fails unless every router counter is back to zero (in flight, open reservations). */
  void awaitRouterIdle(int port) {
    waitUntil(() -> routerInFlight(port) == 0
        && metrics(port).getOrDefault("tandem_reservations_open", 0.0) == 0, 3_000,
        "router " + port + " idle: " + metrics(port));
  }

  static void waitUntil(java.util.function.BooleanSupplier condition, long timeoutMs, String what) {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (!condition.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      try {
        Thread.sleep(20); // test thread only
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /** Undeploys the supervisor: the routers and every engine stop. */
  Future<Void> close() {
    return supervisor == null ? Future.succeededFuture() : vertx.undeploy(supervisor);
  }

  /** Engine gauges and the last lines of every engine log: what a failed test should show. */
  String diagnostics(Path dir) {
    StringBuilder sb = new StringBuilder("\n== router: ").append(get(routerPort(), "/admin/engines").body());
    for (int e = 0; e < config.get(ENDPOINT_PORTS).size(); e++) {
      sb.append("\n== engine ").append(e).append(':');
      Map<String, Double> m;
      try {
        m = metrics(enginePort(e));
      } catch (IllegalStateException down) { // a killed engine not back yet
        sb.append(" (no metrics: ").append(down.getMessage()).append(')');
        continue;
      }
      for (String k : List.of("running", "waiting", "parked", "kv_pages_free", "kv_pages_total",
          "preemptions_total", "prep_recv_total", "remote_send_total", "start_generate_total",
          "parked_released_total", "parked_expired_total", "requests_aborted_total")) {
        sb.append(' ').append(k).append('=').append(m.get("tandem_engine_" + k));
      }
    }
    try {
      sb.append('\n').append(log(dir).lines().filter(l -> !l.contains("CudaUtils"))
          .reduce(new StringBuilder(), (acc, l) -> acc.append(l).append('\n'), StringBuilder::append));
    } catch (IOException e) {
      sb.append("\n(no logs: ").append(e).append(')');
    }
    return sb.toString();
  }

  static String log(Path dir) throws IOException {
    StringBuilder sb = new StringBuilder();
    try (var files = Files.list(dir.resolve("logs"))) {
      for (Path f : files.toList()) {
        sb.append("== ").append(f).append('\n').append(Files.readString(f));
      }
    }
    return sb.toString();
  }
}
