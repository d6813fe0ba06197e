package dev.tandem.router.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.config.RouterOptions;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Preemption forced by a small KV cache (max_total_seq_length=128: 8 pages per engine): a decode
 * engine that runs out of pages ends a request whose KV it received with
 * {@code finish_reason: "preempt"}; the router resumes it, and every client still gets the
 * complete answer it gets without pressure, streamed without a repeated character.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 150, unit = TimeUnit.SECONDS)
@io.vertx.junit5.Timeout(value = 150, timeUnit = TimeUnit.SECONDS)
class PreemptionIT {

  @TempDir static Path dir;
  static TandemFleet fleet;

  @BeforeAll
  static void startFleet(Vertx vertx, VertxTestContext ctx) throws IOException {
    // The router's default stage timeouts: prep_recv reserves all the pages a request needs to
    // start decoding, so requests holding received KV can never deadlock admission on D.
    TandemFleet.start(vertx, dir, "max_total_seq_length=128",
            o -> o.set(RouterOptions.MAX_PREEMPT_RETRIES, 12))
        .onComplete(ctx.succeeding(started -> {
          fleet = started;
          ctx.completeNow();
        }));
  }

  @AfterAll
  static void stopFleet(VertxTestContext ctx) {
    if (fleet == null) {
      ctx.completeNow();
    } else {
      fleet.close().onComplete(ctx.succeedingThenComplete());
    }
  }

  static JsonObject request(int i, boolean stream) {
    String prompt = "Story " + i + ": once upon a time there was a little engine that could keep "
        + "many tokens in its cache, until it could not.";
    return new JsonObject().put("prompt", prompt).put("max_tokens", 48).put("temperature", 0)
        .put("stream", stream);
  }

  static String text(HttpResponse<String> r, boolean stream) {
    assertEquals(200, r.statusCode(), r.body());
    if (!stream) {
      return new JsonObject(r.body()).getJsonArray("choices").getJsonObject(0).getString("text");
    }
    StringBuilder sb = new StringBuilder();
    String[] events = r.body().split("\n\n");
    assertEquals("data: [DONE]", events[events.length - 1].strip(), "complete stream");
    for (String e : events) {
      if (e.startsWith("data: {")) {
        JsonObject chunk = new JsonObject(e.substring(6));
        assertTrue(chunk.getValue("error") == null, e);
        for (Object c : chunk.getJsonArray("choices", new JsonArray())) {
          sb.append(((JsonObject) c).getString("text"));
        }
      }
    }
    return sb.toString();
  }

  @Test
  void preemptedRequestsStillGetTheirCompleteUnpressuredAnswers() throws Exception {
    int port = fleet.routerPort();
    int n = 6;
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      expected.add(text(fleet.post(port, "/v1/completions", request(i, false).encode()), false));
    }
    assertEquals(0, fleet.metrics(port).getOrDefault("tandem_router_preempt_resumes_total", 0.0),
        "one request at a time fits: no preemption yet");

    List<CompletableFuture<HttpResponse<String>>> running = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      running.add(fleet.http.sendAsync(HttpRequest.newBuilder(
              URI.create("http://127.0.0.1:" + port + "/v1/completions"))
          .timeout(Duration.ofSeconds(120)).header("content-type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(request(i, i % 2 == 0).encode())).build(),
          HttpResponse.BodyHandlers.ofString()));
    }
    long deadline = System.currentTimeMillis() + 90_000;
    for (int i = 0; i < n; i++) {
      HttpResponse<String> r;
      try {
        r = running.get(i).get(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        throw new AssertionError("request " + i + " did not finish" + fleet.diagnostics(dir));
      }
      assertEquals(expected.get(i), text(r, i % 2 == 0), "request " + i + " under pressure");
    }
    double preempted = fleet.engineMetric(1, "tandem_engine_preemptions_total")
        + fleet.engineMetric(2, "tandem_engine_preemptions_total");
    double resumed = fleet.metrics(port).getOrDefault("tandem_router_preempt_resumes_total", 0.0);
    assertTrue(preempted > 0 && resumed > 0, "pressure really preempted (engines " + preempted
        + ", router resumes " + resumed + ")");
    assertTrue(fleet.metrics(port).getOrDefault("tandem_router_resume_attempts_total{how=\"continue\"}", 0.0) > 0,
        "greedy requests continue from their delivered tokens (matched against the engine's record)");
    fleet.awaitRouterIdle(port);
    assertEquals(0, fleet.engineMetric(1, "tandem_engine_parked") + fleet.engineMetric(2, "tandem_engine_parked"));
  }
}
