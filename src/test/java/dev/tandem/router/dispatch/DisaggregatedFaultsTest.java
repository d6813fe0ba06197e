package dev.tandem.router.dispatch;

import static dev.tandem.config.RouterOptions.BUSY_WAIT;
import static dev.tandem.config.RouterOptions.CHUNK_IDLE_TIMEOUT;
import static dev.tandem.config.RouterOptions.FIRST_CHUNK_TIMEOUT;
import static dev.tandem.config.RouterOptions.PD_BALANCE_FACTOR;
import static dev.tandem.config.RouterOptions.PREP_RECV_TIMEOUT;
import static dev.tandem.config.RouterOptions.REMOTE_SEND_TIMEOUT;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.START_GENERATE_TIMEOUT;

import static dev.tandem.router.testing.FaultInjectingFakeEngine.Behavior.Kind.*;
import static dev.tandem.router.testing.RouterHarness.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.config.RouterMode;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.router.api.ModelInfo;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.testing.FaultInjectingFakeEngine;
import dev.tandem.router.testing.FaultInjectingFakeEngine.Behavior;
import dev.tandem.router.testing.FaultInjectingFakeEngine.Received;
import dev.tandem.router.testing.RouterHarness;
import dev.tandem.router.testing.RouterHarness.Answer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Disaggregated mode (1 prefill + 2 decode fake engines): MLC's call order and bodies, and what
 * happens to D's reservation and every in-flight counter when a step fails.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, timeUnit = TimeUnit.SECONDS)
class DisaggregatedFaultsTest {

  static final int[] PROMPT = {3, 14, 15, 92};
  static final ModelInfo MODEL = new ModelInfo("fake-model", 4096, 1000);

  Vertx vertx;
  FaultInjectingFakeEngine p;
  FaultInjectingFakeEngine d1;
  FaultInjectingFakeEngine d2;
  RouterHarness h;

  @BeforeEach
  void setUp(Vertx vertx, VertxTestContext ctx) {
    this.vertx = vertx;
    p = new FaultInjectingFakeEngine(vertx);
    d1 = new FaultInjectingFakeEngine(vertx);
    d2 = new FaultInjectingFakeEngine(vertx);
    Future.all(p.start(), d1.start(), d2.start()).onComplete(ctx.succeedingThenComplete());
  }

  /** Deploys the router with 1 prefill + 2 decode engines ready. */
  Future<Void> router(double factor) {
    return router(new RouterOptions().set(ROUTER_MODE, RouterMode.DISAGG)
        .set(PD_BALANCE_FACTOR, factor).set(PREP_RECV_TIMEOUT, Duration.ofMillis(500))
        .set(REMOTE_SEND_TIMEOUT, Duration.ofMillis(500)).set(FIRST_CHUNK_TIMEOUT, Duration.ofMillis(600))
        .set(START_GENERATE_TIMEOUT, Duration.ofMillis(600)).set(CHUNK_IDLE_TIMEOUT, Duration.ofMillis(600)),
        status(0, p.url(), EngineRole.PREFILL, EngineState.READY, 0),
        status(1, d1.url(), EngineRole.DECODE, EngineState.READY, 0),
        status(2, d2.url(), EngineRole.DECODE, EngineState.READY, 0));
  }

  Future<Void> router(RouterOptions options, EngineStatus... engines) {
    return RouterHarness.start(vertx, options, MODEL, null).compose(router -> {
      h = router;
      return h.announce(engines);
    });
  }

  @AfterEach
  void nothingLeftBehind(VertxTestContext ctx) {
    if (h == null) {
      ctx.completeNow();
      return;
    }
    h.until("in-flight counters at 0", 2_000,
            () -> h.adminEngines().map(view -> view.getInteger("inFlightTotal") == 0))
        .compose(v -> h.untilTrue("no reservation left on D", 2_000,
            () -> d1.parked().isEmpty() && d2.parked().isEmpty()))
        .compose(v -> h.untilTrue("D engines idle", 2_000, () -> d1.running() + d2.running() == 0))
        .compose(v -> h.adminEngines())
        .map(view -> {
          ctx.verify(() -> assertEquals(0, view.getInteger("reservationsOpen")));
          return view;
        })
        .eventually(h::close)
        .onComplete(ctx.succeedingThenComplete());
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

  /** The decode engine that got the (first) prep_recv. */
  FaultInjectingFakeEngine decodeUsed() {
    return !d1.received("/microserving/prep_recv").isEmpty() ? d1 : d2;
  }

  @Test
  void mlcCallOrderWithOneRequestIdAndTheWindowEnds(VertxTestContext ctx) {
    router(0.0).compose(v -> h.post("/v1/completions", request(5, false).put("user", "bob")))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals(200, a.status(), a.body().toString());
          String id = a.json().getString("id");
          assertEquals(expected(5), a.json().getJsonArray("choices").getJsonObject(0).getString("text"));
          FaultInjectingFakeEngine d = decodeUsed();
          List<String> calls = d.received().stream().map(Received::path).toList();
          assertEquals(List.of("/microserving/prep_recv", "/microserving/start_generate"), calls);
          JsonObject prep = d.received().get(0).body();
          JsonObject send = p.received("/microserving/remote_send").get(0).body();
          JsonObject start = d.received().get(1).body();
          assertEquals(id, prep.getString("user"));
          assertEquals(id, send.getString("user"));
          assertEquals(id, start.getString("user"));
          assertEquals(3, prep.getInteger("end"), "factor 0: all but the last token, normalised");
          assertEquals(0, send.getInteger("begin"));
          assertEquals(3, send.getInteger("end"));
          assertEquals("AwAAAAAAAABbMF0=", send.getString("kv_addr_info"));
          assertEquals(d == d1 ? 1 : 2, send.getInteger("recv_rank"), "recv_rank is D's first PE");
          assertEquals(3, start.getInteger("begin"));
          assertNotNull(prep.getJsonObject("debug_config"));
          ctx.completeNow();
        })));
  }

  @Test
  void balanceFactorMovesTheWindowEnd(VertxTestContext ctx) {
    router(0.5).compose(v -> h.post("/v1/completions", request(3, false)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals(200, a.status());
          assertEquals(2, p.received("/microserving/remote_send").get(0).body().getInteger("end"));
          assertEquals(2, decodeUsed().received("/microserving/start_generate").get(0).body().getInteger("begin"));
          ctx.completeNow();
        })));
  }

  @Test
  void prefixCacheOnDCoveringTheWindowSkipsThePrefillEngine(VertxTestContext ctx) {
    d1.prefixMatched(3);
    d2.prefixMatched(3);
    router(0.0).compose(v -> h.post("/v1/completions", request(4, true)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals(expected(4), a.streamedText(0));
          assertTrue(p.received().isEmpty(), "P not contacted at all");
          ctx.completeNow();
        })));
  }

  @Test
  void withoutAReadyPrefillEngineDServesTheWholeRequest(VertxTestContext ctx) {
    router(0.0)
        .compose(v -> h.announce(status(0, p.url(), EngineRole.PREFILL, EngineState.UNHEALTHY, 0)))
        .compose(v -> h.post("/v1/completions", request(4, false)))
        .compose(a -> {
          ctx.verify(() -> {
            assertEquals(expected(4), a.json().getJsonArray("choices").getJsonObject(0).getString("text"));
            assertEquals(1, d1.received("/v1/completions").size() + d2.received("/v1/completions").size());
            assertTrue(d1.received("/microserving/prep_recv").isEmpty() && d2.received("/microserving/prep_recv").isEmpty());
          });
          return h.get("/ready");
        })
        .onComplete(ctx.succeeding(ready -> ctx.verify(() -> {
          assertEquals(200, ready.status(), "decode engines alone can serve");
          ctx.completeNow();
        })));
  }

  @Test
  void failedRemoteSendReleasesTheReservationAndDPrefillsItself(VertxTestContext ctx) {
    p.script("/microserving/remote_send", Behavior.of(FAIL_500));
    router(0.0).compose(v -> h.post("/v1/completions", request(4, true)))
        .compose(a -> {
          ctx.verify(() -> {
            assertEquals(expected(4), a.streamedText(0));
            FaultInjectingFakeEngine d = decodeUsed();
            String firstId = d.received("/microserving/prep_recv").get(0).body().getString("user");
            List<Received> releases = d.received("/microserving/release");
            assertEquals(1, releases.size());
            assertEquals(firstId, releases.get(0).body().getString("user"));
            assertEquals(1, d1.received("/v1/completions").size() + d2.received("/v1/completions").size(),
                "the only prefill engine failed: a decode engine did it all");
          });
          return h.metrics();
        })
        .onComplete(ctx.succeeding(page -> ctx.verify(() -> {
          assertTrue(page.contains("tandem_reservations_released_total 1"), page);
          ctx.completeNow();
        })));
  }

  @Test
  void hungPrepRecvTimesOutIsReleasedAndAnotherDecodeEngineServes(VertxTestContext ctx) {
    d1.script("/microserving/prep_recv", Behavior.of(HANG));
    d2.script("/microserving/prep_recv", Behavior.of(HANG));
    router(0.0).compose(v -> h.post("/v1/completions", request(3, false)))
        .compose(failed -> {
          ctx.verify(() -> {
            assertEquals(504, failed.status(), failed.body().toString());
            assertEquals(1, d1.received("/microserving/release").size());
            assertEquals(1, d2.received("/microserving/release").size());
          });
          return h.post("/v1/completions", request(3, false));
        })
        .onComplete(ctx.succeeding(ok -> ctx.verify(() -> {
          assertEquals(expected(3), ok.json().getJsonArray("choices").getJsonObject(0).getString("text"));
          ctx.completeNow();
        })));
  }

  @Test
  void inconsistentPrepRecvAnswerIsAProtocolErrorAndIsRetried(VertxTestContext ctx) {
    d1.prefixMatched(9); // more than the window: impossible
    router(0.0).compose(v -> h.post("/v1/completions", request(3, false)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals(expected(3), a.json().getJsonArray("choices").getJsonObject(0).getString("text"));
          assertEquals(1, d1.received("/microserving/release").size());
          assertEquals(1, d2.received("/microserving/start_generate").size());
          ctx.completeNow();
        })));
  }

  @Test
  void brokenGenerationOnDEndsTheStreamWithAnErrorAndReleases(VertxTestContext ctx) {
    d1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(DROP_AFTER, 2));
    d2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(DROP_AFTER, 2));
    router(0.0).compose(v -> h.post("/v1/completions", request(6, true)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          JsonObject last = new JsonObject(a.events().get(a.events().size() - 1));
          assertEquals("engine_stream_broken", last.getJsonObject("error").getString("code"));
          assertEquals(expected(2), a.streamedText(0));
          assertEquals(1, decodeUsed().received("/microserving/release").size());
          ctx.completeNow();
        })));
  }

  @Test
  void clientGoneReleasesEverything(VertxTestContext ctx) {
    d1.tokenDelayMs(40);
    d2.tokenDelayMs(40);
    router(0.0)
        .compose(v -> h.postAndLeaveAtTheFirstChunk("/v1/completions", request(200, true)))
        .compose(v -> h.untilTrue("D to stop generating within a second", 1_000,
            () -> d1.running() + d2.running() == 0))
        .compose(v -> {
          ctx.verify(() -> assertEquals(1, d1.abortedByClient() + d2.abortedByClient()));
          return h.untilTrue("release", 1_000,
              () -> decodeUsed().received("/microserving/release").size() == 1);
        })
        .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void preemptOnDResumesThroughTheWholeChainWithoutRepeating(VertxTestContext ctx) {
    d1.chunkTokenIds(true);
    d2.chunkTokenIds(true);
    d1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 3));
    d2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 3));
    router(0.0).compose(v -> h.post("/v1/completions", request(8, true)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals(expected(8), a.streamedText(0));
          List<Received> preps = new java.util.ArrayList<>(d1.received("/microserving/prep_recv"));
          preps.addAll(d2.received("/microserving/prep_recv"));
          assertEquals(3, preps.size());
          assertTrue(preps.stream().anyMatch(r -> r.body().getJsonArray("prompt").size() == PROMPT.length + 6
              && r.body().getInteger("end") == PROMPT.length + 5), "the continuation's window covers the delivered tokens");
          List<String> users = preps.stream().map(r -> r.body().getString("user")).distinct().toList();
          assertEquals(3, users.size(), "each attempt has its own engine request id");
          ctx.completeNow();
        })));
  }

  @Test
  void anExpiredReservationIsTheRoutersProblemNotTheClients(VertxTestContext ctx) {
    d1.script("/microserving/start_generate", Behavior.of(EXPIRED)); // D1 is picked first
    router(0.0).compose(v -> h.post("/v1/completions", request(3, false)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          // the engine's 404 ("no prepared request") is retried elsewhere, never shown as a 404
          assertEquals(200, a.status(), a.body().toString());
          assertEquals(expected(3), a.json().getJsonArray("choices").getJsonObject(0).getString("text"));
          assertEquals(1, d2.received("/microserving/start_generate").size());
          ctx.completeNow();
        })));
  }

  @Test
  void busyDecodeEnginesAreWaitedForNotGivenUpOn(VertxTestContext ctx) {
    for (int i = 0; i < 3; i++) {
      d1.script("/microserving/prep_recv", Behavior.of(BUSY_503));
      d2.script("/microserving/prep_recv", Behavior.of(BUSY_503));
    }
    router(0.0).compose(v -> h.post("/v1/completions", request(3, false)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals(expected(3), a.json().getJsonArray("choices").getJsonObject(0).getString("text"));
          assertEquals(7, d1.received("/microserving/prep_recv").size() + d2.received("/microserving/prep_recv").size());
          assertTrue(d1.received("/microserving/release").isEmpty() && d2.received("/microserving/release").isEmpty(),
              "a 503 from prep_recv parked nothing: nothing to release");
          ctx.completeNow();
        })));
  }

  @Test
  void busyForTooLongIs503WithRetryAfter(VertxTestContext ctx) {
    for (int i = 0; i < 50; i++) {
      d1.script("/microserving/prep_recv", Behavior.of(BUSY_503));
    }
    router(new RouterOptions().set(ROUTER_MODE, RouterMode.DISAGG).set(BUSY_WAIT, Duration.ofMillis(200)),
        status(0, p.url(), EngineRole.PREFILL, EngineState.READY, 0),
        status(1, d1.url(), EngineRole.DECODE, EngineState.READY, 0))
        .compose(v -> h.post("/v1/completions", request(3, false)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals(503, a.status(), a.body().toString());
          assertEquals("engine_busy", a.json().getJsonObject("error").getString("code"));
          assertEquals("1", a.headers().get("retry-after"));
          d1.parked().clear();
          ctx.completeNow();
        })));
  }

  @Test
  void noDecodeEngineIs503(VertxTestContext ctx) {
    router(0.0)
        .compose(v -> h.announce(status(1, d1.url(), EngineRole.DECODE, EngineState.UNHEALTHY, 0),
            status(2, d2.url(), EngineRole.DECODE, EngineState.FAILED, 0)))
        .compose(v -> h.post("/v1/completions", request(2, false)))
        .compose(a -> {
          ctx.verify(() -> {
            assertEquals(503, a.status());
            assertEquals("no_engine_available", a.json().getJsonObject("error").getString("code"));
          });
          return h.get("/ready");
        })
        .onComplete(ctx.succeeding(ready -> ctx.verify(() -> {
          assertEquals(503, ready.status());
          assertTrue(p.received().isEmpty());
          ctx.completeNow();
        })));
  }
}
