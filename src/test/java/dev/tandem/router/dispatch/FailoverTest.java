package dev.tandem.router.dispatch;

import static dev.tandem.config.RouterOptions.CHUNK_IDLE_TIMEOUT;
import static dev.tandem.config.RouterOptions.FIRST_CHUNK_TIMEOUT;
import static dev.tandem.config.RouterOptions.MAX_FAILOVERS;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.router.testing.FaultInjectingFakeEngine.Behavior.Kind.DROP_AFTER;
import static dev.tandem.router.testing.FaultInjectingFakeEngine.Behavior.Kind.PREEMPT_AFTER;
import static dev.tandem.router.testing.RouterHarness.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.config.RouterMode;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.api.ModelInfo;
import dev.tandem.router.testing.FaultInjectingFakeEngine;
import dev.tandem.router.testing.FaultInjectingFakeEngine.Behavior;
import dev.tandem.router.testing.RouterHarness;
import dev.tandem.router.testing.RouterHarness.Answer;
import dev.tandem.testing.PrometheusSamples;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Mid-answer failover against fault-injecting fake engines: an engine that dies after text was
 * delivered costs the client nothing. Greedy choices continue from prompt + delivered tokens;
 * replays (sampling, ids unknown, preempts) are checked against what the client has, and a replay
 * that differs ends the stream with an error, never with text that does not continue the client's.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, timeUnit = TimeUnit.SECONDS)
class FailoverTest {

  static final int[] PROMPT = {3, 14, 15, 92};
  static final ModelInfo MODEL = new ModelInfo("fake-model", 4096, 1000);

  Vertx vertx;
  FaultInjectingFakeEngine e0;
  FaultInjectingFakeEngine e1;
  FaultInjectingFakeEngine e2;
  RouterHarness h;

  @BeforeEach
  void setUp(Vertx vertx, VertxTestContext ctx) {
    this.vertx = vertx;
    e0 = new FaultInjectingFakeEngine(vertx);
    e1 = new FaultInjectingFakeEngine(vertx);
    e2 = new FaultInjectingFakeEngine(vertx);
    Future.all(e0.start(), e1.start(), e2.start()).onComplete(ctx.succeedingThenComplete());
  }

  /** Engines 1 and 2 decode (round-robin: both serve whole requests; disagg: engine 0 prefills). */
  Future<Void> router(RouterMode mode, UnaryOperator<RouterOptions> more) {
    return RouterHarness.start(vertx, more.apply(new RouterOptions().set(ROUTER_MODE, mode)
            .set(FIRST_CHUNK_TIMEOUT, Duration.ofMillis(800))
            .set(CHUNK_IDLE_TIMEOUT, Duration.ofMillis(800))), MODEL, null)
        .compose(router -> {
          h = router;
          return mode == RouterMode.DISAGG
              ? h.announce(status(0, e0.url(), EngineRole.PREFILL, EngineState.READY, 0))
              : Future.<Void>succeededFuture();
        })
        .compose(v -> h.announce(status(1, e1.url(), EngineRole.DECODE, EngineState.READY, 0),
            status(2, e2.url(), EngineRole.DECODE, EngineState.READY, 0)));
  }

  @AfterEach
  void nothingLeftBehind(VertxTestContext ctx) {
    if (h == null) {
      ctx.completeNow();
      return;
    }
    h.until("in-flight at 0", 2_000,
            () -> h.adminEngines().map(view -> view.getInteger("inFlightTotal") == 0))
        .compose(v -> h.untilTrue("engines idle", 2_000, () -> e1.running() + e2.running() == 0))
        .compose(v -> h.untilTrue("no reservation left", 2_000,
            () -> e1.parked().isEmpty() && e2.parked().isEmpty()))
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

  /** A stream that ended as a successful one does: [DONE] last, no error event anywhere. */
  static void assertWholeStream(Answer a) {
    assertEquals(200, a.status(), a.body().toString());
    List<String> events = a.events();
    assertEquals("[DONE]", events.get(events.size() - 1), events.toString());
    assertTrue(events.stream().noneMatch(e -> e.contains("\"error\"")), events.toString());
  }

  /** The router's /metrics samples (a missing one reads 0 through {@link #metric}). */
  Future<Map<String, Double>> metrics() {
    return h.metrics().map(PrometheusSamples::parse);
  }

  static double metric(Map<String, Double> samples, String name) {
    return samples.getOrDefault(name, 0.0);
  }

  @Test
  void aGreedyStreamContinuesOnAnotherEngineFromTheDeliveredTokens(VertxTestContext ctx) {
    e1.chunkTokenIds(true).script(FaultInjectingFakeEngine.GENERATION, Behavior.after(DROP_AFTER, 3));
    e2.chunkTokenIds(true);
    router(RouterMode.ROUND_ROBIN, o -> o)
        .compose(v -> h.post("/v1/completions", request(8, true)))
        .compose(a -> {
          ctx.verify(() -> {
            assertWholeStream(a);
            assertEquals(expected(8), a.streamedText(0), "token for token the undisturbed answer");
            JsonObject resumed = e2.received("/v1/completions").get(0).body();
            assertEquals(PROMPT.length + 3, resumed.getJsonArray("prompt").size(),
                "prompt + the 3 delivered tokens");
            assertEquals(5, resumed.getInteger("max_tokens"), "the remaining budget");
          });
          return metrics();
        })
        .onComplete(ctx.succeeding(m -> ctx.verify(() -> {
          assertEquals(1.0, metric(m, "tandem_router_failovers_total"));
          assertEquals(1.0, metric(m, "tandem_router_resume_attempts_total{how=\"continue\"}"));
          ctx.completeNow();
        })));
  }

  @Test
  void withoutTokenIdsTheAnswerIsReplayedAndCheckedByItsText(VertxTestContext ctx) {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(DROP_AFTER, 3));
    router(RouterMode.ROUND_ROBIN, o -> o)
        .compose(v -> h.post("/v1/completions", request(8, true)))
        .compose(a -> {
          ctx.verify(() -> {
            assertWholeStream(a);
            assertEquals(expected(8), a.streamedText(0));
            assertEquals(PROMPT.length, e2.received("/v1/completions").get(0).body()
                .getJsonArray("prompt").size(), "a replay of the original request");
          });
          return metrics();
        })
        .onComplete(ctx.succeeding(m -> ctx.verify(() -> {
          assertEquals(1.0, metric(m, "tandem_router_replay_checks_total{result=\"match\"}"));
          ctx.completeNow();
        })));
  }

  @Test
  void seededSamplingReplaysAndIsCheckedTokenByToken(VertxTestContext ctx) {
    e1.chunkTokenIds(true).script(FaultInjectingFakeEngine.GENERATION, Behavior.after(DROP_AFTER, 2));
    e2.chunkTokenIds(true);
    router(RouterMode.ROUND_ROBIN, o -> o)
        .compose(v -> h.post("/v1/completions", request(6, true).put("temperature", 0.8)
            .put("seed", 42).put("n", 2)))
        .compose(a -> {
          ctx.verify(() -> {
            assertWholeStream(a);
            for (int i = 0; i < 2; i++) {
              assertEquals(FaultInjectingFakeEngine.expectedSeededText(42, i, 6), a.streamedText(i));
            }
          });
          return metrics();
        })
        .onComplete(ctx.succeeding(m -> ctx.verify(() -> {
          assertEquals(2.0, metric(m, "tandem_router_replay_checks_total{result=\"match\"}"));
          ctx.completeNow();
        })));
  }

  @Test
  void aReplayThatDiffersEndsTheStreamWithAnErrorNeverWithWrongText(VertxTestContext ctx) {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(DROP_AFTER, 3));
    e2.tokenShift(1); // not the same "model": its replay cannot reproduce engine 1's text
    router(RouterMode.ROUND_ROBIN, o -> o)
        .compose(v -> h.post("/v1/completions", request(8, true)))
        .compose(a -> {
          ctx.verify(() -> {
            List<String> events = a.events();
            JsonObject error = new JsonObject(events.get(events.size() - 1)).getJsonObject("error");
            assertEquals("replay_mismatch", error.getString("code"), events.toString());
            assertFalse(events.contains("[DONE]"));
            assertEquals(expected(3), a.streamedText(0), "only what engine 1 delivered, nothing of e2's");
          });
          return metrics();
        })
        .onComplete(ctx.succeeding(m -> ctx.verify(() -> {
          assertEquals(1.0, metric(m, "tandem_router_replay_checks_total{result=\"mismatch\"}"));
          ctx.completeNow();
        })));
  }

  @Test
  void aPreemptedSampledReplayIsCheckedToo(VertxTestContext ctx) {
    e1.chunkTokenIds(true).script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 2));
    e2.chunkTokenIds(true).tokenShift(3);
    router(RouterMode.ROUND_ROBIN, o -> o)
        .compose(v -> h.post("/v1/completions", request(6, false).put("temperature", 0.8).put("seed", 7)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals(502, a.status(), a.body().toString());
          assertEquals("replay_mismatch", a.json().getJsonObject("error").getString("code"));
          assertTrue(a.json().getJsonObject("error").getString("message").contains("token 0"),
              "checked token by token: " + a.body());
          ctx.completeNow();
        })));
  }

  @Test
  void failoversAreBoundedPerChoice(VertxTestContext ctx) {
    e1.chunkTokenIds(true).script(FaultInjectingFakeEngine.GENERATION, Behavior.after(DROP_AFTER, 2));
    e2.chunkTokenIds(true).script(FaultInjectingFakeEngine.GENERATION, Behavior.after(DROP_AFTER, 2));
    router(RouterMode.ROUND_ROBIN, o -> o.set(MAX_FAILOVERS, 1))
        .compose(v -> h.post("/v1/completions", request(8, true)))
        .compose(a -> {
          ctx.verify(() -> {
            List<String> events = a.events();
            JsonObject error = new JsonObject(events.get(events.size() - 1)).getJsonObject("error");
            assertEquals("engine_stream_broken", error.getString("code"), events.toString());
            assertEquals(expected(4), a.streamedText(0), "2 tokens from each engine, each exactly once");
          });
          return metrics();
        })
        .onComplete(ctx.succeeding(m -> ctx.verify(() -> {
          assertEquals(1.0, metric(m, "tandem_router_failovers_total"));
          ctx.completeNow();
        })));
  }

  @Test
  void aDisaggregatedStreamFailsOverWithAFreshPrepRecvOnTheOtherDecodeEngine(VertxTestContext ctx) {
    e1.chunkTokenIds(true).script(FaultInjectingFakeEngine.GENERATION, Behavior.after(DROP_AFTER, 3));
    e2.chunkTokenIds(true);
    router(RouterMode.DISAGG, o -> o)
        .compose(v -> h.post("/v1/completions", request(8, true)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertWholeStream(a);
          assertEquals(expected(8), a.streamedText(0));
          JsonObject prep = e2.received("/microserving/prep_recv").get(0).body();
          assertEquals(PROMPT.length + 3, prep.getJsonArray("prompt").size());
          assertEquals(PROMPT.length + 2, prep.getInteger("end"), "the window of the longer prompt");
          assertEquals(2, e0.received("/microserving/remote_send").size(), "P sent KV for both attempts");
          assertEquals(1, e2.received("/microserving/start_generate").size());
          ctx.completeNow();
        })));
  }

  @Test
  void aRequestWaitsForARestartingEngineInsteadOfFailing(VertxTestContext ctx) {
    router(RouterMode.ROUND_ROBIN, o -> o)
        .compose(v -> h.announce(status(1, e1.url(), EngineRole.DECODE, EngineState.RESTARTING, 1),
            status(2, e2.url(), EngineRole.DECODE, EngineState.STOPPED, 0)))
        .compose(v -> {
          Future<Answer> waiting = h.post("/v1/completions", request(3, false));
          vertx.setTimer(300, t -> h.publish(status(1, e1.url(), EngineRole.DECODE, EngineState.READY, 1)));
          return waiting;
        })
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals(200, a.status(), a.body().toString());
          assertEquals(expected(3), a.json().getJsonArray("choices").getJsonObject(0).getString("text"));
          assertNull(a.json().getValue("error"));
          ctx.completeNow();
        })));
  }
}
