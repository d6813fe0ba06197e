package dev.tandem.router.dispatch;

import static dev.tandem.config.RouterOptions.CHUNK_IDLE_TIMEOUT;
import static dev.tandem.config.RouterOptions.FIRST_CHUNK_TIMEOUT;
import static dev.tandem.config.RouterOptions.MAX_PREEMPT_RETRIES;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;

import static dev.tandem.router.testing.FaultInjectingFakeEngine.Behavior.Kind.*;
import static dev.tandem.router.testing.RouterHarness.status;
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
 * Round-robin mode against fault-injecting fake engines: the failure paths a real engine cannot
 * be made to take on demand (5xx, hangs, dropped streams, garbage, preempts at a chosen token).
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, timeUnit = TimeUnit.SECONDS)
class RoundRobinFaultsTest {

  static final int[] PROMPT = {3, 14, 15, 92};
  static final ModelInfo MODEL = new ModelInfo("fake-model", 4096, 1000);

  FaultInjectingFakeEngine e1;
  FaultInjectingFakeEngine e2;
  RouterHarness h;

  @BeforeEach
  void setUp(Vertx vertx, VertxTestContext ctx) {
    e1 = new FaultInjectingFakeEngine(vertx);
    e2 = new FaultInjectingFakeEngine(vertx);
    Future.all(e1.start(), e2.start())
        .compose(v -> RouterHarness.start(vertx, new RouterOptions()
            .set(ROUTER_MODE, RouterMode.ROUND_ROBIN).set(FIRST_CHUNK_TIMEOUT, Duration.ofMillis(600))
            .set(CHUNK_IDLE_TIMEOUT, Duration.ofMillis(600)).set(MAX_PREEMPT_RETRIES, 2), MODEL, null))
        .compose(router -> {
          h = router;
          return h.announce(status(1, e1.url(), EngineRole.DECODE, EngineState.READY, 0),
              status(2, e2.url(), EngineRole.DECODE, EngineState.READY, 0));
        })
        .onComplete(ctx.succeedingThenComplete());
  }

  @AfterEach
  void allCountersBackToZero(VertxTestContext ctx) {
    if (h == null) {
      ctx.completeNow();
      return;
    }
    h.idle()
        .compose(v -> h.untilTrue("engines to stop generating", 2_000,
            () -> e1.running() == 0 && e2.running() == 0))
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

  List<Received> generations(FaultInjectingFakeEngine e) {
    return e.received("/v1/completions");
  }

  @Test
  void wholeRequestToOneEngineWithTheRoutersIdAsUser(VertxTestContext ctx) {
    h.post("/v1/completions", request(5, false).put("user", "alice")).onComplete(ctx.succeeding(a -> ctx.verify(() -> {
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
      ctx.completeNow();
    })));
  }

  @Test
  void suffixIsAddedOnceAfterEveryChoiceFinished(VertxTestContext ctx) {
    h.post("/v1/completions", request(3, false).put("suffix", "!").put("n", 2))
        .compose(whole -> {
          ctx.verify(() -> {
            for (int i = 0; i < 2; i++) {
              assertEquals(expected(3) + "!", whole.json().getJsonArray("choices").getJsonObject(i).getString("text"));
            }
          });
          return h.post("/v1/completions", request(3, true).put("suffix", "!"));
        })
        .onComplete(ctx.succeeding(streamed -> ctx.verify(() -> {
          assertEquals(expected(3) + "!", streamed.streamedText(0));
          List<Received> all = new java.util.ArrayList<>(generations(e1));
          all.addAll(generations(e2));
          assertTrue(all.stream().noneMatch(r -> r.body().containsKey("suffix")), "engines never add it");
          ctx.completeNow();
        })));
  }

  @Test
  void streamingRelaysEveryChunkThenUsageThenDone(VertxTestContext ctx) {
    h.post("/v1/completions", request(6, true)
        .put("stream_options", new JsonObject().put("include_usage", true)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
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
          ctx.completeNow();
        })));
  }

  @Test
  void engineErrorBeforeAnyOutputIsRetriedOnAnotherEngine(VertxTestContext ctx) {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(FAIL_500));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(FAIL_500));
    h.post("/v1/completions", request(3, false))
        .compose(both -> {
          ctx.verify(() -> {
            assertEquals(502, both.status(), both.body().toString());
            assertTrue(both.json().getJsonObject("error").getString("message").contains("HTTP 500"));
          });
          e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(FAIL_500));
          return h.post("/v1/completions", request(3, true));
        })
        .compose(a -> {
          ctx.verify(() -> {
            assertEquals(200, a.status());
            assertEquals(expected(3), a.streamedText(0));
          });
          return h.metrics();
        })
        .onComplete(ctx.succeeding(page -> ctx.verify(() -> {
          assertTrue(page.contains("tandem_router_engine_retries_total 3"), page);
          ctx.completeNow();
        })));
  }

  @Test
  void hungEngineTimesOutAndIsResetThenAnotherServes(VertxTestContext ctx) {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(HANG));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(HANG));
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(HANG_AFTER, 0));
    long t0 = System.currentTimeMillis();
    h.post("/v1/completions", request(3, false))
        .compose(a -> {
          ctx.verify(() -> {
            // two hangs, then the third attempt hangs after its head: 3 timeouts, 504
            assertEquals(504, a.status(), a.body().toString());
            assertTrue(System.currentTimeMillis() - t0 < 5_000);
          });
          return h.post("/v1/completions", request(3, false));
        })
        .onComplete(ctx.succeeding(ok -> ctx.verify(() -> {
          assertEquals(200, ok.status());
          ctx.completeNow();
        })));
  }

  @Test
  void brokenStreamAfterOutputEndsWithAnErrorEvent(VertxTestContext ctx) {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(DROP_AFTER, 2));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(DROP_AFTER, 2));
    h.post("/v1/completions", request(6, true)).onComplete(ctx.succeeding(a -> ctx.verify(() -> {
      assertEquals(200, a.status());
      List<String> events = a.events();
      JsonObject last = new JsonObject(events.get(events.size() - 1));
      assertNotNull(last.getJsonObject("error"), "stream must end with an error event: " + events);
      assertEquals("engine_stream_broken", last.getJsonObject("error").getString("code"));
      assertFalse(events.contains("[DONE]"));
      assertEquals(expected(2), a.streamedText(0), "what was sent stays, nothing is repeated");
      ctx.completeNow();
    })));
  }

  @Test
  void brokenStreamOfANonStreamingRequestResumesElsewhere(VertxTestContext ctx) {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(DROP_AFTER, 3));
    h.post("/v1/completions", request(7, false)).onComplete(ctx.succeeding(a -> ctx.verify(() -> {
      assertEquals(200, a.status(), a.body().toString());
      assertEquals(expected(7), a.json().getJsonArray("choices").getJsonObject(0).getString("text"));
      assertEquals(7, a.json().getJsonObject("usage").getInteger("completion_tokens"));
      assertEquals(1, generations(e2).size(), "resumed on the engine that did not fail");
      // the broken stream left no token record: greedy decoding is replayed, the delivered part cut
      JsonObject resumed = generations(e2).get(0).body();
      assertEquals(PROMPT.length, resumed.getJsonArray("prompt").size());
      assertEquals(7, resumed.getInteger("max_tokens"));
      ctx.completeNow();
    })));
  }

  @Test
  void garbageFromTheEngineIsAProtocolError(VertxTestContext ctx) {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(GARBAGE_AFTER, 1));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(GARBAGE_AFTER, 1));
    h.post("/v1/completions", request(4, true)).onComplete(ctx.succeeding(a -> ctx.verify(() -> {
      JsonObject last = new JsonObject(a.events().get(a.events().size() - 1));
      assertEquals("engine_protocol_error", last.getJsonObject("error").getString("code"));
      ctx.completeNow();
    })));
  }

  @Test
  void anEngineErrorEventAfterTextEndsTheStreamWithTheEnginesMessage(VertxTestContext ctx) {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(ERROR_EVENT_AFTER, 2));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(ERROR_EVENT_AFTER, 2));
    h.post("/v1/completions", request(6, true)).onComplete(ctx.succeeding(a -> ctx.verify(() -> {
      assertEquals(200, a.status());
      List<String> events = a.events();
      JsonObject error = new JsonObject(events.get(events.size() - 1)).getJsonObject("error");
      assertEquals("engine_error", error.getString("code"), error.encode());
      assertTrue(error.getString("message").contains("fake engine failed mid-stream"), error.encode());
      assertEquals(expected(6).substring(0, expected(2).length()), a.streamedText(0),
          "the text before the error reached the client, nothing after it");
      assertFalse(events.contains("[DONE]"));
      ctx.completeNow();
    })));
  }

  @Test
  void engine4xxStaysA4xxWithTheEnginesMessageAndIsNotRetried(VertxTestContext ctx) {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(REJECT_400));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(REJECT_400));
    h.post("/v1/completions", request(4, true)).onComplete(ctx.succeeding(a -> ctx.verify(() -> {
      assertEquals(400, a.status());
      assertEquals("fake engine rejects this", a.json().getJsonObject("error").getString("message"));
      assertEquals(1, generations(e1).size() + generations(e2).size());
      ctx.completeNow();
    })));
  }

  /** Two prompts in one request: {@link #PROMPT} and {@code 1, 2, 3}. */
  static JsonObject listRequest(int maxTokens, boolean stream) {
    return request(maxTokens, stream).put("prompt", new JsonArray()
        .add(new JsonArray(List.of(3, 14, 15, 92))).add(new JsonArray(List.of(1, 2, 3))));
  }

  @Test
  void aListOfPromptsSendsEachPromptUnderAnEngineRequestIdOfItsOwn(VertxTestContext ctx) {
    h.post("/v1/completions", listRequest(3, true).put("n", 2)).onComplete(ctx.succeeding(a -> ctx.verify(() -> {
      assertEquals(200, a.status(), a.body().toString());
      assertEquals(expected(3), a.streamedText(0));
      assertEquals(expected(3), a.streamedText(1));
      String second = FaultInjectingFakeEngine.expectedGreedyText(new int[] {1, 2, 3}, 3);
      assertEquals(second, a.streamedText(2));
      assertEquals(second, a.streamedText(3));
      List<Received> all = new java.util.ArrayList<>(generations(e1));
      all.addAll(generations(e2));
      assertEquals(2, all.size(), "one engine request per prompt, n choices each");
      String id = new JsonObject(a.events().get(0)).getString("id");
      assertEquals(java.util.Set.of(id, id + "-p1"),
          java.util.Set.of(all.get(0).body().getString("user"), all.get(1).body().getString("user")));
      ctx.completeNow();
    })));
  }

  @Test
  void onePromptRefusedFailsTheListAndStopsTheOtherPromptsEngineRequest(VertxTestContext ctx) {
    e1.tokenDelayMs(10);
    e2.tokenDelayMs(10);
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(REJECT_400));
    long t0 = System.currentTimeMillis();
    h.post("/v1/completions", listRequest(200, false))
        .compose(a -> {
          ctx.verify(() -> {
            assertEquals(400, a.status(), a.body().toString());
            assertEquals("fake engine rejects this", a.json().getJsonObject("error").getString("message"));
            assertTrue(System.currentTimeMillis() - t0 < 1_500, "the other prompt did not run its 2 s");
          });
          return h.untilTrue("the other prompt's engine request to be aborted", 2_000,
              () -> e1.abortedByClient() + e2.abortedByClient() == 1);
        })
        .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void preemptedStreamContinuesFromWhatWasDeliveredWithoutRepeating(VertxTestContext ctx) {
    e1.chunkTokenIds(true);
    e2.chunkTokenIds(true);
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 3));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 3));
    h.post("/v1/completions", request(8, true)).onComplete(ctx.succeeding(a -> ctx.verify(() -> {
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
      ctx.completeNow();
    })));
  }

  @Test
  void preemptedGreedyWithoutKnownIdsIsReplayedWithoutRepeating(VertxTestContext ctx) {
    // no per-chunk ids and no tokenizer to match the usage record: replay, cut what was sent
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 3));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 5));
    h.post("/v1/completions", request(8, true)).onComplete(ctx.succeeding(a -> ctx.verify(() -> {
      assertEquals(expected(8), a.streamedText(0));
      List<Received> all = new java.util.ArrayList<>(generations(e1));
      all.addAll(generations(e2));
      assertTrue(all.size() >= 2 && all.size() <= 3, "attempts: " + all.size());
      assertTrue(all.stream().allMatch(r -> r.body().getJsonArray("prompt").size() == PROMPT.length
          && r.body().getInteger("max_tokens") == 8), "replays send the original request");
      ctx.completeNow();
    })));
  }

  @Test
  void unseededSamplingGetsARouterSeedSoItsReplayIsExact(VertxTestContext ctx) {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 2));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 2));
    h.post("/v1/completions", request(6, true).put("temperature", 0.8))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          List<Received> all = new java.util.ArrayList<>(generations(e1));
          all.addAll(generations(e2));
          long seed = all.get(0).body().getLong("seed");
          assertTrue(all.stream().allMatch(r -> r.body().getLong("seed") == seed), "one seed for every attempt");
          assertEquals(FaultInjectingFakeEngine.expectedSeededText(seed, 0, 6), a.streamedText(0));
          ctx.completeNow();
        })));
  }

  @Test
  void preemptedSeededSamplingIsReplayedExactly(VertxTestContext ctx) {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 2));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 2));
    JsonObject req = request(6, true).put("temperature", 1.0).put("seed", 42).put("n", 2);
    h.post("/v1/completions", req).onComplete(ctx.succeeding(a -> ctx.verify(() -> {
      for (int i = 0; i < 2; i++) {
        assertEquals(FaultInjectingFakeEngine.expectedSeededText(42, i, 6), a.streamedText(i), "choice " + i);
      }
      List<Received> all = new java.util.ArrayList<>(generations(e1));
      all.addAll(generations(e2));
      assertTrue(all.stream().allMatch(r -> r.body().getJsonArray("prompt").size() == PROMPT.length
          && r.body().getInteger("n") == 2), "replays send the original request");
      ctx.completeNow();
    })));
  }

  @Test
  void endlessPreemptsEndAfterTheBound(VertxTestContext ctx) {
    for (int i = 0; i < 3; i++) {
      e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 1));
      e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(PREEMPT_AFTER, 1));
    }
    h.post("/v1/completions", request(8, false)).onComplete(ctx.succeeding(a -> ctx.verify(() -> {
      assertEquals(503, a.status(), a.body().toString());
      assertEquals("preempted", a.json().getJsonObject("error").getString("code"));
      assertNotNull(a.headers().get("retry-after"));
      ctx.completeNow();
    })));
  }

  @Test
  void silentEngineMidStreamTimesOut(VertxTestContext ctx) {
    e1.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(HANG_AFTER, 2));
    e2.script(FaultInjectingFakeEngine.GENERATION, Behavior.after(HANG_AFTER, 2));
    h.post("/v1/completions", request(6, true))
        .compose(a -> {
          ctx.verify(() -> {
            JsonObject last = new JsonObject(a.events().get(a.events().size() - 1));
            assertEquals("engine_timeout", last.getJsonObject("error").getString("code"));
          });
          // it failed over to the other engine, which went silent too: both requests reset
          return h.untilTrue("the silent requests reset", 1_000,
              () -> e1.abortedByClient() + e2.abortedByClient() == 2);
        })
        .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void clientGoneMidStreamAbortsTheEngineRequest(VertxTestContext ctx) {
    e1.tokenDelayMs(40);
    e2.tokenDelayMs(40);
    long[] goneAt = new long[1];
    h.postAndLeaveAtTheFirstChunk("/v1/completions", request(200, true))
        .compose(v -> {
          goneAt[0] = System.currentTimeMillis();
          return h.untilTrue("engine to stop within a second", 1_000,
              () -> e1.running() + e2.running() == 0);
        })
        .compose(v -> {
          ctx.verify(() -> {
            assertTrue(System.currentTimeMillis() - goneAt[0] < 1_000);
            assertEquals(1, e1.abortedByClient() + e2.abortedByClient());
          });
          return h.until("the router to count the client as gone", 2_000,
              () -> h.metrics().map(page -> page.contains("tandem_router_clients_gone_total 1")));
        })
        .onComplete(ctx.succeedingThenComplete());
  }

  /** {@code n} greedy requests one after the other, each answered 200. */
  Future<Void> servedInTurn(int n, VertxTestContext ctx) {
    Future<Void> chain = Future.succeededFuture();
    for (int i = 0; i < n; i++) {
      chain = chain.compose(v -> h.post("/v1/completions", request(2, false))
          .map(a -> {
            ctx.verify(() -> assertEquals(200, a.status(), a.body().toString()));
            return null;
          }));
    }
    return chain;
  }

  @Test
  void unhealthyEnginesLeaveRotationAndComeBack(VertxTestContext ctx) {
    h.announce(status(1, e1.url(), EngineRole.DECODE, EngineState.UNHEALTHY, 0))
        .compose(v -> servedInTurn(4, ctx))
        .compose(v -> {
          ctx.verify(() -> {
            assertEquals(0, generations(e1).size());
            assertEquals(4, generations(e2).size());
          });
          return h.announce(status(1, e1.url(), EngineRole.DECODE, EngineState.READY, 1));
        })
        .compose(v -> servedInTurn(4, ctx))
        .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
          assertEquals(2, generations(e1).size(), "back in rotation: ties alternate");
          ctx.completeNow();
        })));
  }

  @Test
  void noEngineIs503WithRetryAfterAndNotReady(VertxTestContext ctx) {
    h.get("/ready")
        .compose(before -> {
          ctx.verify(() -> assertEquals(200, before.status()));
          return h.announce(status(1, e1.url(), EngineRole.DECODE, EngineState.UNHEALTHY, 0),
              status(2, e2.url(), EngineRole.DECODE, EngineState.STOPPED, 0));
        })
        .compose(v -> h.get("/ready"))
        .compose(ready -> {
          ctx.verify(() -> {
            assertEquals(503, ready.status());
            assertEquals("1", ready.headers().get("retry-after"));
          });
          return h.post("/v1/completions", request(2, false));
        })
        .compose(a -> {
          ctx.verify(() -> {
            assertEquals(503, a.status());
            assertEquals("1", a.headers().get("retry-after"));
            assertEquals("no_engine_available", a.json().getJsonObject("error").getString("code"));
          });
          return h.get("/health");
        })
        .onComplete(ctx.succeeding(health -> ctx.verify(() -> {
          assertEquals(200, health.status());
          ctx.completeNow();
        })));
  }

  @Test
  void metricsPageShowsPerEngineInFlightAndCounters(VertxTestContext ctx) {
    h.post("/v1/completions", request(2, false))
        .compose(v -> h.post("/v1/completions", "{nope"))
        .compose(v -> h.metrics())
        .compose(page -> {
          ctx.verify(() -> {
            assertTrue(page.contains("tandem_inflight{engine=\"1\",role=\"decode\"} 0"), page);
            assertTrue(page.contains("tandem_inflight{engine=\"2\",role=\"decode\"} 0"), page);
            assertTrue(page.contains("tandem_router_requests_total 2"), page);
            assertTrue(page.contains("tandem_router_responses_total{status=\"400\"} 1"), page);
          });
          h.publish(new LoadReport(1, 0, 0, 0, 100L, 128L, 60_000, System.currentTimeMillis(), null));
          return h.until("gauges from the engine's load report on the bus", 3_000, () -> h.metrics()
              .map(p -> p.contains("tandem_engine_gauge{engine=\"1\",name=\"kv_total_pages\"} 128")));
        })
        .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void modelsAndUnknownRoutes(VertxTestContext ctx) {
    h.get("/v1/models")
        .compose(models -> {
          ctx.verify(() -> assertEquals("fake-model",
              models.json().getJsonArray("data").getJsonObject(0).getString("id")));
          return h.get("/v1/nothing");
        })
        .compose(missing -> {
          ctx.verify(() -> {
            assertEquals(404, missing.status());
            assertNotNull(missing.json().getJsonObject("error").getString("message"));
          });
          return h.get("/v1/completions");
        })
        .onComplete(ctx.succeeding(wrongMethod -> ctx.verify(() -> {
          assertNotEquals(200, wrongMethod.status());
          ctx.completeNow();
        })));
  }
}
