package dev.tandem.router.it;

import java.util.concurrent.TimeUnit;
import dev.tandem.testing.TinyModel;
import static dev.tandem.config.RouterConfig.ENDPOINT_PORTS;
import static dev.tandem.config.RouterConfig.ENGINE_JVM_OPTS;
import static dev.tandem.config.RouterConfig.HEALTH_FAILURES;
import static dev.tandem.config.RouterConfig.HEALTH_INTERVAL;
import static dev.tandem.config.RouterConfig.HEALTH_TIMEOUT;
import static dev.tandem.config.RouterConfig.LOAD_REPORT_INTERVAL;
import static dev.tandem.config.RouterConfig.LOG_DIR;
import static dev.tandem.config.RouterConfig.MODEL;
import static dev.tandem.config.RouterConfig.STARTUP_TIMEOUT;
import static dev.tandem.config.RouterConfig.STOP_GRACE;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;

import dev.tandem.config.RouterConfig;
import dev.tandem.config.RouterMode;
import dev.tandem.supervisor.SupervisorVerticle;
import dev.tandem.testing.FreePorts;
import dev.tandem.testing.PrometheusSamples;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

/**
 * A round-robin fleet of real builtin engines (tiny model) behind a router with keys and limits,
 * and the HTTP calls an operator or a client makes to it, each with its key.
 */
final class OpsFleet implements AutoCloseable {

  final Vertx vertx = Vertx.vertx();
  final RouterConfig config;
  final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private final String supervisor;

  OpsFleet(Path dir, int engines, UnaryOperator<RouterConfig> settings) throws Exception {
    Path model = TinyModel.shared();
    int[] ports = FreePorts.of(engines + 1);
    List<Integer> enginePorts = new java.util.ArrayList<>();
    for (int i = 0; i < engines; i++) {
      enginePorts.add(ports[i]);
    }
    config = settings.apply(new RouterConfig().set(MODEL, model.toString())
        .set(ROUTER_PORT, ports[engines]).set(ENDPOINT_PORTS, enginePorts)
        .set(ROUTER_MODE, RouterMode.ROUND_ROBIN).set(LOG_DIR, dir.resolve("logs").toString())
        .set(ENGINE_JVM_OPTS, List.of("-Xmx256m")).set(STARTUP_TIMEOUT, Duration.ofSeconds(120))
        .set(HEALTH_INTERVAL, Duration.ofSeconds(1)).set(HEALTH_TIMEOUT, Duration.ofSeconds(2))
        .set(HEALTH_FAILURES, 5).set(STOP_GRACE, Duration.ofSeconds(5))
        .set(LOAD_REPORT_INTERVAL, Duration.ofMillis(250)));
    supervisor = await(vertx.deployVerticle(new SupervisorVerticle(config)), 150);
  }

  int port() {
    return config.get(ROUTER_PORT);
  }

  HttpRequest.Builder request(String path, String key) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
        .timeout(Duration.ofSeconds(120));
    return key == null ? b : b.header("Authorization", "Bearer " + key);
  }

  HttpResponse<String> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new IllegalStateException(request.method() + " " + request.uri() + ": " + e, e);
    }
  }

  HttpResponse<String> get(String path, String key) {
    return send(request(path, key).GET().build());
  }

  HttpResponse<String> post(String path, String key, JsonObject body) {
    return send(request(path, key).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body.encode())).build());
  }

  HttpResponse<String> delete(String path, String key) {
    return send(request(path, key).DELETE().build());
  }

  CompletableFuture<HttpResponse<String>> completeAsync(String key, int maxTokens) {
    return http.sendAsync(request("/v1/completions", key).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(completion(maxTokens).encode())).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> complete(String key, int maxTokens) {
    return post("/v1/completions", key, completion(maxTokens));
  }

  static JsonObject completion(int maxTokens) {
    return new JsonObject().put("prompt", "The operators of a router watch").put("max_tokens", maxTokens)
        .put("temperature", 0).put("debug_config", new JsonObject().put("ignore_eos", true));
  }

  /** The router's /metrics samples (admin key). */
  Map<String, Double> metrics(String adminKey) {
    return PrometheusSamples.parse(get("/metrics", adminKey).body());
  }

  /** Sum of the samples whose key starts with {@code prefix}. */
  static double sum(Map<String, Double> samples, String prefix) {
    return samples.entrySet().stream().filter(e -> e.getKey().startsWith(prefix))
        .mapToDouble(Map.Entry::getValue).sum();
  }

  JsonArray engines(String adminKey) {
    return new JsonObject(get("/admin/engines", adminKey).body()).getJsonArray("engines");
  }

  /** The engine's pid as the supervisor knows it ({@code /fleet}). */
  long pid(int engine, String adminKey) {
    for (Object o : new JsonObject(get("/fleet", adminKey).body()).getJsonArray("engines")) {
      JsonObject e = (JsonObject) o;
      if (e.getInteger("id") == engine) {
        return e.getLong("pid");
      }
    }
    throw new IllegalStateException("no engine " + engine + " in /fleet");
  }

  static void signal(long pid, String signal) throws Exception {
    Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
    }
  }

  @Override
  public void close() throws Exception {
    try {
      await(vertx.undeploy(supervisor), 60);
    } finally {
      await(vertx.close(), 30);
    }
  }

  /** Blocks the test thread on {@code future}: this fixture serves blocking process tests. */
  private static <T> T await(io.vertx.core.Future<T> future, int seconds) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(seconds, TimeUnit.SECONDS);
  }
}
