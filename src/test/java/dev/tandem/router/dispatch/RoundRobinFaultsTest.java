package dev.tandem.router.dispatch;

import static dev.tandem.config.RouterOptions.CHUNK_IDLE_TIMEOUT;
import static dev.tandem.config.RouterOptions.FIRST_CHUNK_TIMEOUT;
import static dev.tandem.config.RouterOptions.MAX_PREEMPT_RETRIES;
import static dev.tandem.config.RouterOptions.ROUTER_HOST;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;

import static dev.tandem.router.testing.FaultInjectingFakeEngine.Behavior.Kind.*;
import static dev.tandem.router.testing.RouterHarness.await;
import static dev.tandem.router.testing.RouterHarness.status;
import static dev.tandem.router.testing.RouterHarness.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.LoadReport;
import dev.tandem.router.api.ModelInfo;
import dev.tandem.config.RouterMode;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.testing.FaultInjectingFakeEngine;
import dev.tandem.router.testing.FaultInjectingFakeEngine.Behavior;
import dev.tandem.router.testing.FaultInjectingFakeEngine.Received;
import dev.tandem.router.testing.RouterHarness;
import dev.tandem.router.testing.RouterHarness.Answer;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Round-robin mode against fault-injecting fake engines: the failure paths a real engine cannot
 * be made to take on demand (5xx, hangs, dropped streams, garbage, preempts at a chosen token).
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, timeUnit = TimeUnit.SECONDS)
class RoundRobinFaultsTest {

  static final int[] PROMPT = {3, 14, 15, 92};
  static final ModelInfo MODEL = new ModelInfo("fake-model", 4096, 1000);

  Vertx vertx;
  FaultInjectingFakeEngine e1;
  FaultInjectingFakeEngine e2;
  RouterHarness h;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    e1 = await(new FaultInjectingFakeEngine(vertx).start());
    e2 = await(new FaultInjectingFakeEngine(vertx).start());
    h = RouterHarness.start(vertx, new RouterOptions().set(ROUTER_MODE, RouterMode.ROUND_ROBIN)
        .set(FIRST_CHUNK_TIMEOUT, Duration.ofMillis(600)).set(CHUNK_IDLE_TIMEOUT, Duration.ofMillis(600))
        .set(MAX_PREEMPT_RETRIES, 2), MODEL, null);
    h.announce(status(1, e1.url(), EngineRole.DECODE, EngineState.READY, 0),
        status(2, e2.url(), EngineRole.DECODE, EngineState.READY, 0));
  }

  @AfterEach
  void allCountersBackToZero() {
    waitUntil(() -> h.inFlight(1) == 0 && h.inFlight(2) == 0, 2_000, "in-flight counters to drop to 0");
    waitUntil(() -> e1.running() == 0 && e2.running() == 0, 2_000, "engines to stop generating");
    h.close();
  }

  static JsonObject request(int maxTokens, boolean stream) {
    JsonArray prompt = new JsonArray();
    for (int t : PROMPT) {
      prompt.add(t);
    }
    return new JsonObject().put("prompt", prompt).put("max_tokens", maxTokens)
        .put("temperature", 0).put("stream", stream);
  }

  static String expected(int maxTokens) {
    return FaultInjectingFakeEngine.expectedGreedyText(PROMPT, maxTokens);
  }

  List<Received> generations(FaultInjectingFakeEngine e) {
    return e.received("/v1/completions");
  }

  @Test
  void wholeRequestToOneEngineWithTheRoutersIdAsUser() {
    Answer a = h.post("/v1/completions", request(5, false).put("user", "alice"));
    assertEquals(200, a.status(), a.body().toString());
    JsonObject body = a.json();
    assertTrue(body.getString("id").matches("cmpl-[0-9a-f]{32}"), body.getString("id"));
    assertEquals("text_completion", body.getString("object"));
    assertEquals("fake-model", body.getString("model"));
    JsonObject choice = body.getJsonArray("choices").getJsonObject(0);
    assertEquals(expected(5), choice.getString("text"));
    assertEquals("length", choice.getString("finish_reason"));
    assertEquals(new JsonObject().put("prompt_tokens", 4).put("completion_tokens", 5)
        .put("total_tokens", 9), body.getJsonObject("usage"));
    List<Received> sent = generations(e1).isEmpty() ? generations(e2) : generations(e1);
    assertEquals(1, generations(e1).size() + generations(e2).size());
    JsonObject engineBody = sent.get(0).body();
    assertEquals(body.getString("id"), engineBody.getString("user"), "the client's user must not reach the engine");
    assertEquals(Boolean.FALSE, engineBody.getBoolean("echo"));
    assertEquals(Boolean.TRUE, engineBody.getBoolean("stream"));
    assertEquals(Boolean.TRUE, engineBody.getJsonObject("stream_options").getBoolean("include_usage"));
    assertNotNull(engineBody.getJsonObject("debug_config"), "MLC engines need a debug_config object");
    assertFalse(engineBody.containsKey("seed"), "greedy requests need no seed");
  }

  @Test
  void suffixIsAddedOnceAfterEveryChoiceFinished() {
    Answer whole = h.post("/v1/completions", request(3, false).put("suffix", "!").put("n", 2));
    for (int i = 0; i < 2; i++) {
      assertEquals(expected(3) + "!", whole.json().getJsonArray("choices").getJsonObject(i).getString("text"));
    }
    Answer streamed = h.post("/v1/completions", request(3, true).put("suffix", "!"));
    assertEquals(expected(3) + "!", streamed.streamedText(0));
    List<Received> all = new java.util.ArrayList<>(generations(e1));
    all.addAll(generations(e2));
    assertTrue(all.stream().noneMatch(r -> r.body().containsKey("suffix")), "engines never add it");
  }

  @Test
  void streamingRelaysEveryChunkThenUsageThenDone() {
    Answer a = h.post("/v1/completions", request(6, true)
        .put("stream_options", new JsonObject().put("include_usage", true)));
    assertEquals(200, a.status());
    assertTrue(a.headers().get("content-type").startsWith("text/event-stream"));
    List<String> events = a.events();
    assertEquals("[DONE]", events.get(events.size() - 1));
    JsonObject usageChunk = new JsonObject(events.get(events.size() - 2));
    assertTrue(usageChunk.getJsonArray("choices").isEmpty());
    assertEquals(6, usageChunk.getJsonObject("usage").getInteger("completion_tokens"));
    assertEquals(expected(6), a.streamedText(0));
    assertEquals(6 + 2, events.size(), "one chunk per token, usage, [DONE]");
    assertFalse(a.body().toString().contains("token_ids"), "engine-only fields stay inside");
  }

  @Test
  void engineErrorBeforeAnyOutputIsRetriedOnAnotherEngine() {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(FAIL_500));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(FAIL_500));
    Answer both = h.post("/v1/completions", request(3, false));
    assertEquals(502, both.status(), both.body().toString());
    assertTrue(both.json().getJsonObject("error").getString("message").contains("HTTP 500"));

    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(FAIL_500));
    Answer a = h.post("/v1/completions", request(3, true));
    assertEquals(200, a.status());
    assertEquals(expected(3), a.streamedText(0));
    assertTrue(h.get("/metrics").body().toString().contains("tandem_router_engine_retries_total 3"));
  }

  @Test
  void hungEngineTimesOutAndIsResetThenAnotherServes() {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(HANG));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(HANG));
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(HANG_AFTER, 0));
    long t0 = System.currentTimeMillis();
    Answer a = h.post("/v1/completions", request(3, false));
    // two hangs, then the third attempt hangs after its head: 3 timeouts, 504
    assertEquals(504, a.status(), a.body().toString());
    assertTrue(System.currentTimeMillis() - t0 < 5_000);
    Answer ok = h.post("/v1/completions", request(3, false));
    assertEquals(200, ok.status());
  }

  @Test
  void brokenStreamAfterOutputEndsWithAnErrorEvent() {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(DROP_AFTER, 2));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(DROP_AFTER, 2));
    Answer a = h.post("/v1/completions", request(6, true));
    assertEquals(200, a.status());
    List<String> events = a.events();
    JsonObject last = new JsonObject(events.get(events.size() - 1));
    assertNotNull(last.getJsonObject("error"), "stream must end with an error event: " + events);
    assertEquals("engine_stream_broken", last.getJsonObject("error").getString("code"));
    assertFalse(events.contains("[DONE]"));
    assertEquals(expected(2), a.streamedText(0), "what was sent stays, nothing is repeated");
  }

  @Test
  void brokenStreamOfANonStreamingRequestResumesElsewhere() {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(DROP_AFTER, 3));
    Answer a = h.post("/v1/completions", request(7, false));
    assertEquals(200, a.status(), a.body().toString());
    assertEquals(expected(7), a.json().getJsonArray("choices").getJsonObject(0).getString("text"));
    assertEquals(7, a.json().getJsonObject("usage").getInteger("completion_tokens"));
    assertEquals(1, generations(e2).size(), "resumed on the engine that did not fail");
    // the broken stream left no token record: greedy decoding is replayed, the delivered part cut
    JsonObject resumed = generations(e2).get(0).body();
    assertEquals(PROMPT.length, resumed.getJsonArray("prompt").size());
    assertEquals(7, resumed.getInteger("max_tokens"));
  }

  @Test
  void garbageFromTheEngineIsAProtocolError() {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(GARBAGE_AFTER, 1));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(GARBAGE_AFTER, 1));
    Answer a = h.post("/v1/completions", request(4, true));
    JsonObject last = new JsonObject(a.events().get(a.events().size() - 1));
    assertEquals("engine_protocol_error", last.getJsonObject("error").getString("code"));
  }

  @Test
  void anEngineErrorEventAfterTextEndsTheStreamWithTheEnginesMessage() {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(ERROR_EVENT_AFTER, 2));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(ERROR_EVENT_AFTER, 2));
    Answer a = h.post("/v1/completions", request(6, true));
    assertEquals(200, a.status());
    List<String> events = a.events();
    JsonObject error = new JsonObject(events.get(events.size() - 1)).getJsonObject("error");
    assertEquals("engine_error", error.getString("code"), error.encode());
    assertTrue(error.getString("message").contains("fake engine failed mid-stream"), error.encode());
    assertEquals(expected(6).substring(0, expected(2).length()), a.streamedText(0),
        "the text before the error reached the client, nothing after it");
    assertFalse(events.contains("[DONE]"));
  }

  @Test
  void engine4xxStaysA4xxWithTheEnginesMessageAndIsNotRetried() {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(REJECT_400));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(REJECT_400));
    Answer a = h.post("/v1/completions", request(4, true));
    assertEquals(400, a.status());
    assertEquals("fake engine rejects this", a.json().getJsonObject("error").getString("message"));
    assertEquals(1, generations(e1).size() + generations(e2).size());
  }

  @Test
  void preemptedStreamContinuesFromWhatWasDeliveredWithoutRepeating() {
    e1.chunkTokenIds(true);
    e2.chunkTokenIds(true);
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 3));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 3));
    Answer a = h.post("/v1/completions", request(8, true));
    assertEquals(expected(8), a.streamedText(0));
    assertFalse(a.body().toString().contains("preempt"));
    long finishes = a.events().stream().filter(e -> !e.equals("[DONE]"))
        .map(e -> new JsonObject(e).getJsonArray("choices"))
        .flatMap(c -> c.stream().map(o -> ((JsonObject) o).getString("finish_reason")))
        .filter(r -> r != null).count();
    assertEquals(1, finishes);
    List<Received> all = new java.util.ArrayList<>(generations(e1));
    all.addAll(generations(e2));
    assertEquals(3, all.size(), "first attempt, then two continuations");
    assertTrue(all.stream().anyMatch(r -> r.body().getJsonArray("prompt").size() == PROMPT.length + 6
        && r.body().getInteger("max_tokens") == 2), "continuation from prompt + 6 delivered tokens");
  }

  @Test
  void preemptedGreedyWithoutKnownIdsIsReplayedWithoutRepeating() {
    // no per-chunk ids and no tokenizer to match the usage record: replay, cut what was sent
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 3));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 5));
    Answer a = h.post("/v1/completions", request(8, true));
    assertEquals(expected(8), a.streamedText(0));
    List<Received> all = new java.util.ArrayList<>(generations(e1));
    all.addAll(generations(e2));
    assertTrue(all.size() >= 2 && all.size() <= 3, "attempts: " + all.size());
    assertTrue(all.stream().allMatch(r -> r.body().getJsonArray("prompt").size() == PROMPT.length
        && r.body().getInteger("max_tokens") == 8), "replays send the original request");
  }

  @Test
  void unseededSamplingGetsARouterSeedSoItsReplayIsExact() {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 2));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 2));
    Answer a = h.post("/v1/completions", request(6, true).put("temperature", 0.8));
    List<Received> all = new java.util.ArrayList<>(generations(e1));
    all.addAll(generations(e2));
    long seed = all.get(0).body().getLong("seed");
    assertTrue(all.stream().allMatch(r -> r.body().getLong("seed") == seed), "one seed for every attempt");
    assertEquals(FaultInjectingFakeEngine.expectedSeededText(seed, 0, 6), a.streamedText(0));
  }

  @Test
  void preemptedSeededSamplingIsReplayedExactly() {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 2));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 2));
    JsonObject req = request(6, true).put("temperature", 1.0).put("seed", 42).put("n", 2);
    Answer a = h.post("/v1/completions", req);
    for (int i = 0; i < 2; i++) {
      assertEquals(FaultInjectingFakeEngine.expectedSeededText(42, i, 6), a.streamedText(i), "choice " + i);
    }
    List<Received> all = new java.util.ArrayList<>(generations(e1));
    all.addAll(generations(e2));
    assertTrue(all.stream().allMatch(r -> r.body().getJsonArray("prompt").size() == PROMPT.length
        && r.body().getInteger("n") == 2), "replays send the original request");
  }

  @Test
  void endlessPreemptsEndAfterTheBound() {
    for (int i = 0; i < 3; i++) {
      e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 1));
      e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 1));
    }
    Answer a = h.post("/v1/completions", request(8, false));
    assertEquals(503, a.status(), a.body().toString());
    assertEquals("preempted", a.json().getJsonObject("error").getString("code"));
    assertNotNull(a.headers().get("retry-after"));
  }

  @Test
  void silentEngineMidStreamTimesOut() {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(HANG_AFTER, 2));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(HANG_AFTER, 2));
    Answer a = h.post("/v1/completions", request(6, true));
    JsonObject last = new JsonObject(a.events().get(a.events().size() - 1));
    assertEquals("engine_timeout", last.getJsonObject("error").getString("code"));
    waitUntil(() -> e1.abortedByClient() + e2.abortedByClient() == 1, 1_000, "the silent request reset");
  }

  @Test
  void clientGoneMidStreamAbortsTheEngineRequest() {
    e1.tokenDelayMs(40);
    e2.tokenDelayMs(40);
    RequestOptions ro = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1")
        .setPort(h.port()).setURI("/v1/completions");
    await(h.onContext(() -> h.http.request(ro).compose(req -> req.send(request(200, true).encode())
        .compose(resp -> {
          io.vertx.core.Promise<Void> first = io.vertx.core.Promise.promise();
          resp.handler(buf -> first.tryComplete());
          return first.future().compose(v -> req.connection().close());
        }))));
    long t0 = System.currentTimeMillis();
    waitUntil(() -> e1.running() + e2.running() == 0, 1_000, "engine to stop within a second");
    assertTrue(System.currentTimeMillis() - t0 < 1_000);
    assertEquals(1, e1.abortedByClient() + e2.abortedByClient());
    waitUntil(() -> h.get("/metrics").body().toString().contains("tandem_router_clients_gone_total 1"),
        2_000, "the router to count the client as gone");
  }

  @Test
  void unhealthyEnginesLeaveRotationAndComeBack() {
    h.announce(status(1, e1.url(), EngineRole.DECODE, EngineState.UNHEALTHY, 0));
    for (int i = 0; i < 4; i++) {
      assertEquals(200, h.post("/v1/completions", request(2, false)).status());
    }
    assertEquals(0, generations(e1).size());
    assertEquals(4, generations(e2).size());
    h.announce(status(1, e1.url(), EngineRole.DECODE, EngineState.READY, 1));
    for (int i = 0; i < 4; i++) {
      assertEquals(200, h.post("/v1/completions", request(2, false)).status());
    }
    assertEquals(2, generations(e1).size(), "back in rotation: ties alternate");
  }

  @Test
  void noEngineIs503WithRetryAfterAndNotReady() {
    assertEquals(200, h.get("/ready").status());
    h.announce(status(1, e1.url(), EngineRole.DECODE, EngineState.RESTARTING, 0),
        status(2, e2.url(), EngineRole.DECODE, EngineState.STOPPED, 0));
    Answer ready = h.get("/ready");
    assertEquals(503, ready.status());
    assertEquals("1", ready.headers().get("retry-after"));
    Answer a = h.post("/v1/completions", request(2, false));
    assertEquals(503, a.status());
    assertEquals("1", a.headers().get("retry-after"));
    assertEquals("no_engine_available", a.json().getJsonObject("error").getString("code"));
    assertEquals(200, h.get("/health").status());
  }

  @Test
  void metricsPageShowsPerEngineInFlightAndCounters() {
    h.post("/v1/completions", request(2, false));
    h.post("/v1/completions", "{nope");
    String page = h.get("/metrics").body().toString();
    assertTrue(page.contains("tandem_inflight{engine=\"1\",role=\"decode\"} 0"), page);
    assertTrue(page.contains("tandem_inflight{engine=\"2\",role=\"decode\"} 0"), page);
    assertTrue(page.contains("tandem_router_requests_total 2"), page);
    assertTrue(page.contains("tandem_router_responses_total{status=\"400\"} 1"), page);
    h.publish(new LoadReport(1, 0, 0, 0, 100L, 128L, 60_000, System.currentTimeMillis(), null));
    waitUntil(() -> h.get("/metrics").body().toString().contains("tandem_engine_gauge{engine=\"1\",name=\"kv_total_pages\"} 128"),
        3_000, "gauges from the engine's load report on the bus");
  }

  @Test
  void modelsAndUnknownRoutes() {
    Answer models = h.get("/v1/models");
    assertEquals("fake-model", models.json().getJsonArray("data").getJsonObject(0).getString("id"));
    Answer missing = h.get("/v1/nothing");
    assertEquals(404, missing.status());
    assertNotNull(missing.json().getJsonObject("error").getString("message"));
    assertNotEquals(200, h.get("/v1/completions").status());
  }
}
