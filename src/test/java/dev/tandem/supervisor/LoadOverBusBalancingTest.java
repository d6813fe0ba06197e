package dev.tandem.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.config.RouterConfig;
import dev.tandem.config.RouterOptions;
import dev.tandem.config.RouterMode;
import dev.tandem.router.RouterVerticle;
import dev.tandem.router.api.ModelInfo;
import dev.tandem.testing.Eventually;
import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TinyModel;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The router balances on what the EngineVerticles publish on the bus: the supervisor deploys two
 * real EngineVerticles and a real round-robin RouterVerticle, but the engines are FAKE
 * ({@link dev.tandem.fleet.FakeEngine}: real processes and HTTP, no model), because a real engine
 * cannot be made to report a long waiting queue while it is idle. An engine reporting 40 waiting
 * requests gets none of the router's requests while the other is idle, and when the two swap
 * their load, the requests swap too. No engine is ever asked for {@code /metrics}.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 90, timeUnit = TimeUnit.SECONDS)
class LoadOverBusBalancingTest {
  private static final int REQUESTS = 8;
  private static final JsonObject BUSY = new JsonObject().put("running", 4).put("waiting", 40);
  private static final JsonObject IDLE = new JsonObject().put("running", 0).put("waiting", 0);

  @TempDir Path dir;

  @Test
  void anEngineReportingALongQueueGetsNoNewRequestsWhileAnotherIsIdle(Vertx vertx,
      VertxTestContext ctx) throws Exception {
    Path model = TinyModel.stub(dir.resolve("model"));
    int[] ports = FreePorts.of(3);
    RouterConfig config = new RouterConfig().set(RouterConfig.MODEL, model.toString())
        .set(RouterOptions.ROUTER_MODE, RouterMode.ROUND_ROBIN).set(RouterOptions.ROUTER_PORT, ports[2])
        .set(RouterConfig.ENDPOINT_PORTS, List.of(ports[0], ports[1]))
        .set(RouterConfig.LOG_DIR, dir.resolve("logs").toString())
        .set(RouterConfig.STARTUP_TIMEOUT, Duration.ofSeconds(30))
        .set(RouterConfig.HEALTH_INTERVAL, Duration.ofMillis(300))
        .set(RouterConfig.STOP_GRACE, Duration.ofSeconds(2))
        .set(RouterConfig.LOAD_REPORT_INTERVAL, Duration.ofMillis(100));
    SupervisorVerticle supervisor = new SupervisorVerticle(config,
        (cfg, tokenizer) -> new RouterVerticle(cfg.routerOptions(),
            new ModelInfo("fake-model", 4096, 1000), null),
        (modelDir, keptChars) -> null,
        new FakeEngineProfile(id -> id == 0 ? List.of("--running", "4", "--waiting", "40")
            : List.of()));
    WebClient http = WebClient.create(vertx);
    int router = ports[2];
    String busyPort = "engine " + ports[0];
    String idlePort = "engine " + ports[1];

    vertx.deployVerticle(supervisor)
        .compose(id -> Eventually.until(vertx, Duration.ofSeconds(20), "the router to see 40 waiting on engine 0",
            () -> waitingSeen(http, router, 40, 0)))
        .compose(v -> completions(http, router))
        .compose(texts -> {
          ctx.verify(() -> assertEquals(List.of(idlePort), distinct(texts),
              "engine 0 reports 40 waiting: every request goes to the idle engine 1"));
          return Future.all(post(http, ports[0], "/fake/load", IDLE),
              post(http, ports[1], "/fake/load", BUSY));
        })
        .compose(v -> Eventually.until(vertx, Duration.ofSeconds(20), "the router to see the swapped load",
            () -> waitingSeen(http, router, 0, 40)))
        .compose(v -> completions(http, router))
        .compose(texts -> {
          ctx.verify(() -> assertEquals(List.of(busyPort), distinct(texts),
              "the load swapped: every request goes to engine 0 now"));
          return Future.all(stats(http, ports[0]), stats(http, ports[1]));
        })
        .onComplete(ctx.succeeding(all -> ctx.verify(() -> {
          JsonObject first = all.resultAt(0);
          JsonObject second = all.resultAt(1);
          assertEquals(REQUESTS, first.getInteger("completions"));
          assertEquals(REQUESTS, second.getInteger("completions"));
          assertEquals(0, first.getInteger("metricsScrapes") + second.getInteger("metricsScrapes"),
              "nobody scrapes /metrics");
          assertTrue(first.getInteger("loadReads") > 0 && second.getInteger("loadReads") > 0,
              "each EngineVerticle read its own engine's load");
          ctx.completeNow();
        })));
  }

  /** Whether the router's admin view shows engines 0 and 1 with these waiting counts. */
  private static Future<Boolean> waitingSeen(WebClient http, int router, int first, int second) {
    return http.get(router, "127.0.0.1", "/admin/engines").send().map(resp -> {
      JsonArray engines = resp.bodyAsJsonObject().getJsonArray("engines");
      return engines.size() == 2 && waiting(engines.getJsonObject(0)) == first
          && waiting(engines.getJsonObject(1)) == second;
    });
  }

  private static int waiting(JsonObject engine) {
    JsonObject load = engine.getJsonObject("load");
    return load == null ? -1 : load.getInteger("waiting", -1);
  }

  /** {@link #REQUESTS} completions at once through the router; their texts name the engine. */
  private static Future<List<String>> completions(WebClient http, int router) {
    List<Future<String>> answers = new ArrayList<>();
    for (int i = 0; i < REQUESTS; i++) {
      JsonObject body = new JsonObject().put("prompt", new JsonArray().add(1).add(2).add(3))
          .put("max_tokens", 4).put("temperature", 0);
      answers.add(http.post(router, "127.0.0.1", "/v1/completions").sendJsonObject(body)
          .map(resp -> {
            if (resp.statusCode() != 200) {
              throw new IllegalStateException("HTTP " + resp.statusCode() + ": " + resp.bodyAsString());
            }
            return resp.bodyAsJsonObject().getJsonArray("choices").getJsonObject(0).getString("text");
          }));
    }
    return Future.all(answers).map(all -> all.<String>list());
  }

  private static Future<Void> post(WebClient http, int port, String path, JsonObject body) {
    return http.post(port, "127.0.0.1", path).sendJsonObject(body).mapEmpty();
  }

  private static Future<JsonObject> stats(WebClient http, int port) {
    return http.get(port, "127.0.0.1", "/fake/stats").send().map(r -> r.bodyAsJsonObject());
  }

  private static List<String> distinct(List<String> texts) {
    return texts.stream().distinct().toList();
  }
}
