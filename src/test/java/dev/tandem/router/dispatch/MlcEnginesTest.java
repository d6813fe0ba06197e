package dev.tandem.router.dispatch;

import static dev.tandem.config.RouterOptions.CHUNK_IDLE_TIMEOUT;
import static dev.tandem.config.RouterOptions.FIRST_CHUNK_TIMEOUT;
import static dev.tandem.config.RouterOptions.PD_BALANCE_FACTOR;
import static dev.tandem.config.RouterOptions.PREP_RECV_TIMEOUT;
import static dev.tandem.config.RouterOptions.REMOTE_SEND_TIMEOUT;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.START_GENERATE_TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.config.RouterMode;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.api.ModelInfo;
import dev.tandem.router.testing.FaultInjectingFakeEngine;
import dev.tandem.router.testing.FakeMlcEngine;
import dev.tandem.router.testing.FakeMlcEngine.Fault;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The router against fake engines that behave as MLC's do (no release endpoint, no time-to-live,
 * fatal window checks): whatever fails after prep_recv (the client, remote_send, P itself,
 * start_generate), the parked request is freed by starting it and disconnecting, and no call ever
 * carries a window that would kill an engine's loop. Also: the fields MLC serves reach it as sent.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, timeUnit = TimeUnit.SECONDS)
class MlcEnginesTest {

  static final int[] PROMPT = {3, 14, 15, 92, 65, 35, 89, 79, 32, 38, 46, 26, 43, 38, 32, 79, 50, 28};
  static final ModelInfo MODEL = new ModelInfo("fake-mlc", 4096, 1000);

  Vertx vertx;
  FakeMlcEngine p;
  FakeMlcEngine d1;
  FakeMlcEngine d2;
  RouterHarness h;

  @BeforeEach
  void setUp(Vertx vertx, VertxTestContext ctx) {
    this.vertx = vertx;
    p = new FakeMlcEngine(vertx);
    d1 = new FakeMlcEngine(vertx);
    d2 = new FakeMlcEngine(vertx);
    Future.all(p.start(), d1.start(), d2.start()).onComplete(ctx.succeedingThenComplete());
  }

  static EngineStatus mlc(int id, FakeMlcEngine e, EngineRole role) {
    return new EngineStatus(id, e.url(), role, id, 1, EngineState.READY, 0, null,
        EngineStatus.MLC, new EngineStatus.World(0, true));
  }

  Future<Void> router(RouterMode mode, double factor, FakeMlcEngine... decoders) {
    return RouterHarness.start(vertx, new RouterOptions().set(ROUTER_MODE, mode)
            .set(PD_BALANCE_FACTOR, factor).set(PREP_RECV_TIMEOUT, Duration.ofMillis(800))
            .set(REMOTE_SEND_TIMEOUT, Duration.ofMillis(800)).set(FIRST_CHUNK_TIMEOUT, Duration.ofMillis(800))
            .set(START_GENERATE_TIMEOUT, Duration.ofMillis(800))
            .set(CHUNK_IDLE_TIMEOUT, Duration.ofMillis(800)), MODEL, null)
        .compose(router -> {
          h = router;
          List<EngineStatus> engines = new ArrayList<>();
          engines.add(mlc(0, p, mode == RouterMode.DISAGG ? EngineRole.PREFILL : EngineRole.BOTH));
          for (int i = 0; i < decoders.length; i++) {
            engines.add(mlc(i + 1, decoders[i],
                mode == RouterMode.DISAGG ? EngineRole.DECODE : EngineRole.BOTH));
          }
          return h.announce(engines.toArray(EngineStatus[]::new));
        });
  }

  /** After each test: nothing parked, no page held, no loop killed, no release call sent. */
  @AfterEach
  void zeroParkedZeroLeakedNoFatalWindow(VertxTestContext ctx) {
    if (h == null) {
      ctx.completeNow();
      return;
    }
    Future<Void> chain = Future.succeededFuture();
    for (FakeMlcEngine e : List.of(p, d1, d2)) {
      chain = chain
          .compose(v -> h.until("no parked request and no used page on " + e.url(), 3_000,
              () -> e.parked().isEmpty() && e.usedPages() == 0 ? Future.succeededFuture(true)
                  : Future.failedFuture(new AssertionError("parked " + e.parked().keySet()
                      + ", pages " + e.usedPages()))))
          .map(v -> {
            assertEquals(List.of(), e.fatal(), "no window that kills MLC's loop on " + e.url());
            assertTrue(e.received("/microserving/release").isEmpty(), "MLC has no release endpoint");
            return null;
          });
    }
    chain.compose(v -> h.until("router counters at 0", 2_000, () -> h.adminEngines()
            .map(view -> view.getInteger("inFlightTotal") == 0 && view.getInteger("reservationsOpen") == 0)))
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

  static String text(Answer a) {
    assertEquals(200, a.status(), a.body().toString());
    return a.json().getJsonArray("choices").getJsonObject(0).getString("text");
  }

  @Test
  void theHappyPathInMlcsCallOrder(VertxTestContext ctx) {
    router(RouterMode.DISAGG, 0.0, d1)
        .compose(v -> h.post("/v1/completions", request(6, false)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals(expected(6), text(a));
          assertEquals(1, d1.received("/microserving/prep_recv").size());
          assertEquals(1, p.received("/microserving/remote_send").size());
          assertEquals(1, d1.received("/microserving/start_generate").size());
          ctx.completeNow();
        })));
  }

  @Test
  void aClientGoneAfterPrepRecvLeavesNothingParked(VertxTestContext ctx) {
    p.callDelayMs(2_000); // remote_send is slow: the client leaves while it runs
    router(RouterMode.DISAGG, 0.0, d1)
        .compose(v -> h.postAndLeaveAfter("/v1/completions", request(6, true), 300))
        .compose(v -> h.untilTrue("the release: start_generate of the parked request", 3_000,
            () -> !d1.received("/microserving/start_generate").isEmpty()))
        .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
          JsonObject release = d1.received("/microserving/start_generate").get(0).body();
          assertEquals(1, release.getInteger("max_tokens"));
          assertEquals(d1.received("/microserving/prep_recv").get(0).body().getString("user"),
              release.getString("user"));
          ctx.completeNow();
        })));
  }

  @Test
  void aFailingRemoteSendFreesDAndDPrefillsAlone(VertxTestContext ctx) {
    p.script("/microserving/remote_send", Fault.FAIL_500, 0);
    router(RouterMode.DISAGG, 0.0, d1)
        .compose(v -> h.post("/v1/completions", request(6, false)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals(expected(6), text(a));
          assertEquals(1, d1.received("/microserving/start_generate").size(), "only the release");
          assertEquals(1, d1.received("/v1/completions").size(), "then D served it whole");
          ctx.completeNow();
        })));
  }

  @Test
  void aPrefillEngineDyingBetweenTheCallsFreesD(VertxTestContext ctx) {
    d1.afterPrepRecv(() -> p.stop());
    router(RouterMode.DISAGG, 0.0, d1)
        .compose(v -> h.post("/v1/completions", request(6, false)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals(expected(6), text(a));
          assertEquals(1, d1.received("/microserving/start_generate").size(), "the release");
          assertEquals(1, d1.received("/v1/completions").size());
          ctx.completeNow();
        })));
  }

  @Test
  void aFailingStartGenerateLeavesNoPagesAndTheStreamFailsOver(VertxTestContext ctx) {
    d1.script("/microserving/start_generate", Fault.DROP_AFTER, 2);
    router(RouterMode.DISAGG, 0.0, d1, d2)
        .compose(v -> h.post("/v1/completions", request(6, true)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals("[DONE]", a.events().get(a.events().size() - 1), a.events().toString());
          assertEquals(expected(6), a.streamedText(0));
          assertTrue(a.events().stream().noneMatch(e -> e.contains("\"error\"")));
          // MLC names no token ids: the failover replays on d2 and checks it against the text sent
          assertEquals(PROMPT.length, d2.received("/microserving/prep_recv").get(0).body()
              .getJsonArray("prompt").size());
          ctx.completeNow();
        })));
  }

  @Test
  void aStartGenerateThatNeverAnswersIsResetAndAborted(VertxTestContext ctx) {
    d1.script("/microserving/start_generate", Fault.HANG, 0);
    router(RouterMode.DISAGG, 0.0, d1, d2)
        .compose(v -> h.post("/v1/completions", request(4, false)))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals(expected(4), text(a));
          ctx.completeNow();
        })));
  }

  @Test
  void noWindowEverReachesAnEngineThatItWouldDieOf(VertxTestContext ctx) {
    Future<Void> chain = Future.succeededFuture();
    for (double factor : new double[] {0.0, 0.5, 0.99}) {
      chain = chain.compose(v -> router(RouterMode.DISAGG, factor, d1));
      for (int length : new int[] {1, 2, 3, 16, 17}) {
        JsonArray prompt = new JsonArray();
        for (int i = 0; i < length; i++) {
          prompt.add(PROMPT[i % PROMPT.length]);
        }
        for (int matched : new int[] {0, 1, 16}) {
          chain = chain.compose(v -> {
            d1.prefixMatched(matched);
            return h.post("/v1/completions", new JsonObject().put("prompt", prompt)
                .put("max_tokens", 2).put("temperature", 0));
          }).map(a -> {
            assertEquals(200, a.status(), "factor " + factor + ", length " + length + ", matched "
                + matched + ": " + a.body());
            return null;
          });
        }
      }
      chain = chain.compose(v -> {
        d1.prefixMatched(0);
        return h.close();
      });
    }
    int[] sent = new int[1];
    chain.compose(v -> router(RouterMode.DISAGG, 0.0, d1))
        .compose(v -> {
          sent[0] = p.received("/microserving/remote_send").size();
          d1.extraSlots(1); // D names more slots than the window: P must never see that metadata
          return h.post("/v1/completions", request(3, false));
        })
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals(502, a.status(), a.body().toString());
          assertTrue(a.json().getJsonObject("error").getString("message").contains("slots"), a.body().toString());
          assertEquals(sent[0], p.received("/microserving/remote_send").size());
          ctx.completeNow();
        })));
  }

  @Test
  void theFieldsMlcServesReachItUnchangedInBothModes(VertxTestContext ctx) {
    JsonObject fields = new JsonObject().put("frequency_penalty", 0.5).put("presence_penalty", -1.0)
        .put("logit_bias", new JsonObject().put("42", 100).put("7", -5.5)).put("top_k", 20);
    JsonObject schema = new JsonObject().put("type", "object");
    Future<Void> chain = Future.succeededFuture();
    for (RouterMode mode : RouterMode.values()) {
      chain = chain.compose(v -> router(mode, 0.0, d1))
          .compose(v -> h.post("/v1/completions", request(3, false).mergeIn(fields)
              .put("response_format", new JsonObject().put("type", "json_schema")
                  .put("json_schema", new JsonObject().put("name", "x").put("schema", schema)))))
          .compose(a -> {
            assertEquals(200, a.status(), a.body().toString());
            List<FaultInjectingFakeEngine.Received> calls = new ArrayList<>();
            for (FakeMlcEngine e : List.of(p, d1)) {
              for (String path : List.of("/v1/completions", "/microserving/prep_recv",
                  "/microserving/remote_send", "/microserving/start_generate")) {
                calls.addAll(e.received(path));
              }
            }
            assertEquals(mode == RouterMode.DISAGG ? 3 : 1, calls.size(), mode + ": " + calls);
            for (FaultInjectingFakeEngine.Received r : calls) {
              fields.forEach(f -> assertEquals(f.getValue(), r.body().getValue(f.getKey()), r.path()));
              assertEquals(new JsonObject().put("type", "json_object").put("schema", schema.encode()),
                  r.body().getJsonObject("response_format"), "MLC's alias key, " + r.path());
            }
            return h.close();
          })
          .compose(v -> {
            p = new FakeMlcEngine(vertx);
            d1 = new FakeMlcEngine(vertx);
            return Future.all(p.start(), d1.start()).<Void>mapEmpty();
          });
    }
    chain.compose(v -> router(RouterMode.ROUND_ROBIN, 0.0, d1))
        .onComplete(ctx.succeedingThenComplete());
  }
}
