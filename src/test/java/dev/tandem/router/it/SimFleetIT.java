package dev.tandem.router.it;

import dev.tandem.testing.TinyModel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.config.EngineKind;
import dev.tandem.config.RouterConfig;
import dev.tandem.config.RouterOptions;
import dev.tandem.config.RouterMode;
import dev.tandem.supervisor.SupervisorVerticle;
import dev.tandem.testing.FreePorts;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Simulated engines behind the real router: 1 prefill + 2 decode {@code tandem serve --device
 * sim:N} processes (H100 + Llama-3-8B profile, the tiny model's vocabulary) in one KV world, the
 * router in disagg mode with cache-aware routing and the adaptive P/D split. Answers reproduce,
 * a disaggregated answer equals the colocated one, conversations stick to their engine, and every
 * decision is counted and explained.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SimFleetIT {

  @TempDir
  static Path dir;
  static Vertx vertx;
  static RouterConfig config;
  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() throws Exception {
    Path model = TinyModel.shared();
    int[] ports = FreePorts.of(4);
    config = new RouterConfig().set(RouterConfig.MODEL, model.toString())
        .set(RouterOptions.ROUTER_PORT, ports[3])
        .set(RouterConfig.ENDPOINT_PORTS, List.of(ports[0], ports[1], ports[2]))
        .set(RouterOptions.ROUTER_MODE, RouterMode.DISAGG).set(RouterConfig.ENGINE, EngineKind.SIM)
        .set(RouterConfig.ENABLE_PREFIX_CACHE, true).set(RouterOptions.PD_POLICY, "adaptive")
        .set(RouterConfig.LOG_DIR, dir.resolve("logs").toString())
        .set(RouterConfig.STARTUP_TIMEOUT, Duration.ofSeconds(60))
        .set(RouterConfig.STOP_GRACE, Duration.ofSeconds(5))
        .set(RouterConfig.LOAD_REPORT_INTERVAL, Duration.ofMillis(250));
    vertx = Vertx.vertx();
    vertx.deployVerticle(new SupervisorVerticle(config)).toCompletionStage().toCompletableFuture()
        .get(90, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    if (vertx != null) {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  static JsonObject complete(int port, Object prompt, int maxTokens) throws Exception {
    JsonObject body = new JsonObject().put("prompt", prompt).put("max_tokens", maxTokens)
        .put("temperature", 0).put("debug_config", new JsonObject().put("ignore_eos", true));
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + "/v1/completions"))
        .POST(HttpRequest.BodyPublishers.ofString(body.encode()))
        .header("content-type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return new JsonObject(r.body());
  }

  static JsonArray ids(int seed, int n) {
    JsonArray a = new JsonArray();
    for (int i = 0; i < n; i++) {
      a.add(3 + (seed * 7919 + i * 131) % 1000);
    }
    return a;
  }

  static String text(JsonObject completion) {
    return completion.getJsonArray("choices").getJsonObject(0).getString("text");
  }

  static JsonObject routing(JsonObject completion) {
    return completion.getJsonObject("usage").getJsonObject("extra").getJsonObject("routing");
  }

  @Test
  void answersReproduceAndDisaggregatedEqualsColocated() throws Exception {
    JsonArray prompt = ids(1, 700); // long enough to be disaggregated on an idle fleet
    JsonObject viaRouter = complete(config.get(RouterOptions.ROUTER_PORT), prompt, 24);
    JsonObject pd = routing(viaRouter).getJsonObject("pd");
    assertEquals("full", pd.getString("decision"), pd.encode());
    assertEquals(text(viaRouter), text(complete(config.get(RouterOptions.ROUTER_PORT), prompt, 24)));
    for (int port : config.get(RouterConfig.ENDPOINT_PORTS)) {
      assertEquals(text(viaRouter), text(complete(port, prompt, 24)), "engine on " + port);
    }
    JsonObject other = complete(config.get(RouterOptions.ROUTER_PORT), ids(2, 700), 24);
    assertNotEquals(text(viaRouter), text(other));
    // P's rate is measured now: whether it is busy is judged by time (--pd-prefill-wait)
    JsonObject otherPd = routing(other).getJsonObject("pd");
    assertEquals("full", otherPd.getString("decision"), otherPd.encode());
    assertTrue(otherPd.getString("why").matches("prefill engine done in \\d+ ms, within 1500"),
        otherPd.encode());
  }

  @Test
  void aConversationStaysOnItsDecodeEngineAndShortTurnsSkipThePrefillHop() throws Exception {
    JsonArray turn1 = ids(3, 400);
    JsonObject first = complete(config.get(RouterOptions.ROUTER_PORT), turn1, 8);
    int engine = routing(first).getJsonObject("decode").getInteger("engine");
    JsonArray turn2 = turn1.copy();
    ids(4, 60).forEach(turn2::add);
    JsonObject second = complete(config.get(RouterOptions.ROUTER_PORT), turn2, 8);
    JsonObject r = routing(second);
    assertEquals(engine, r.getJsonObject("decode").getInteger("engine"), r.encode());
    assertEquals("prefix", r.getJsonObject("decode").getString("reason"), r.encode());
    assertEquals("decode-only", r.getJsonObject("pd").getString("decision"), r.encode());
    int cached = second.getJsonObject("usage").getJsonObject("extra").getInteger("cached_tokens");
    assertTrue(cached >= 384, "the engine reused the first turn: " + cached);
  }

  @Test
  void decisionsAreCountedInTheRoutersMetrics() throws Exception {
    complete(config.get(RouterOptions.ROUTER_PORT), ids(5, 50), 4); // short: decode-only
    HttpResponse<String> m = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + config.get(RouterOptions.ROUTER_PORT) + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
    assertTrue(m.body().contains("tandem_router_pd_decisions_total{decision=\"decode-only\"}"), m.body());
    assertTrue(m.body().contains("tandem_router_route_decisions_total{reason="), m.body());
  }
}
