package dev.tandem.router.api;

import static dev.tandem.config.RouterOptions.ADMIN_KEY_FILE;
import static dev.tandem.config.RouterOptions.API_KEY_FILE;
import static dev.tandem.config.RouterOptions.KEY_TPM;
import static dev.tandem.config.RouterOptions.ROUTER_HOST;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.config.RouterMode;
import dev.tandem.config.RouterOptions;
import dev.tandem.engine.sched.ByteTokenizer;
import dev.tandem.router.RouterVerticle;
import dev.tandem.router.access.AccessControl;
import dev.tandem.router.testing.ScriptedAnswerEngine;
import dev.tandem.testing.PrometheusSamples;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may call what, and how much, through the router's HTTP routes and its bus API: keys from
 * files, 401/403 as OpenAI errors, open probes, per-key token limits with OpenAI's headers, and
 * the refusal counters. The engine is the scripted fake (what it answers does not matter here).
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 30, timeUnit = TimeUnit.SECONDS)
class KeysAndLimitsRouterTest {

  static final String USER = "sk-user-4f1d2c3b5a697788";
  static final String SMALL = "sk-small-0a9b8c7d6e5f4321";
  static final String ADMIN = "sk-admin-99aa88bb77cc66dd";

  @TempDir Path dir;
  Vertx vertx;
  WebClient web;
  RouterVerticle router;
  int port;

  @BeforeEach
  void start(Vertx vertx, VertxTestContext ctx) throws Exception {
    this.vertx = vertx;
    web = WebClient.create(vertx);
    Path keys = Files.writeString(dir.resolve("api-keys"),
        USER + " name=user\n" + SMALL + " name=small tpm=100\n");
    Path admin = Files.writeString(dir.resolve("admin-keys"), ADMIN + " name=ops\n");
    RouterOptions options = new RouterOptions().set(ROUTER_HOST, "127.0.0.1").set(ROUTER_PORT, 0)
        .set(ROUTER_MODE, RouterMode.ROUND_ROBIN).set(API_KEY_FILE, keys.toString())
        .set(ADMIN_KEY_FILE, admin.toString()).set(KEY_TPM, 100_000);
    ScriptedAnswerEngine engine = new ScriptedAnswerEngine(vertx, List.of("a", "b", "c", "d"));
    router = new RouterVerticle(options, new ModelInfo("fake", 100_000, 0), new ByteTokenizer());
    engine.start().compose(e -> vertx.deployVerticle(router)).compose(id -> {
      port = router.actualPort();
      vertx.eventBus().publish(Addresses.DEFAULT.engineStatus(), new EngineStatus(0, engine.url(),
          EngineRole.BOTH, 0, 1, EngineState.READY, 0, null).toJson());
      return ready();
    }).onComplete(ctx.succeedingThenComplete());
  }

  Future<Void> ready() {
    return web.get(port, "127.0.0.1", "/ready").send().compose(r -> r.statusCode() == 200
        ? Future.succeededFuture() : vertx.timer(20).compose(t -> ready()));
  }

  HttpRequest<Buffer> request(io.vertx.core.http.HttpMethod method, String path, String key) {
    HttpRequest<Buffer> req = web.request(method, port, "127.0.0.1", path);
    return key == null ? req : req.bearerTokenAuthentication(key);
  }

  Future<HttpResponse<Buffer>> complete(String key, int maxTokens) {
    return request(io.vertx.core.http.HttpMethod.POST, "/v1/completions", key)
        .sendJsonObject(new JsonObject().put("prompt", "hello").put("max_tokens", maxTokens));
  }

  Future<HttpResponse<Buffer>> get(String path, String key) {
    return request(io.vertx.core.http.HttpMethod.GET, path, key).send();
  }

  static void assertOpenAiError(HttpResponse<Buffer> r, int status, String code) {
    assertEquals(status, r.statusCode(), r.bodyAsString());
    JsonObject error = r.bodyAsJsonObject().getJsonObject("error");
    assertEquals(code, error.getString("code"), r.bodyAsString());
    assertTrue(error.containsKey("message") && error.containsKey("type") && error.containsKey("param"));
  }

  @Test
  void keysOpenWhatTheyShouldAndProbesStayOpen(VertxTestContext ctx) {
    Future.all(List.of(complete(null, 2), complete("sk-wrong", 2), complete(USER, 2),
            complete(ADMIN, 2), get("/admin/engines", USER), get("/admin/engines", ADMIN),
            get("/metrics", null), get("/health", null), get("/ready", null),
            get("/dashboard/", USER), get("/v1/models", null), get("/fleet", USER)))
        .compose(all -> {
          List<HttpResponse<Buffer>> r = all.list();
          ctx.verify(() -> {
          assertOpenAiError(r.get(0), 401, "invalid_api_key");
          assertOpenAiError(r.get(1), 401, "invalid_api_key");
          assertTrue(!r.get(1).bodyAsString().contains("sk-wrong"), "the key is never echoed");
          assertEquals(200, r.get(2).statusCode(), r.get(2).bodyAsString());
          assertEquals(200, r.get(3).statusCode(), "an admin key opens /v1/* too");
          assertOpenAiError(r.get(4), 403, "insufficient_permissions");
          assertEquals(200, r.get(5).statusCode());
          assertOpenAiError(r.get(6), 401, "invalid_api_key");
          assertEquals("Basic realm=\"tandem admin\"", r.get(6).getHeader("WWW-Authenticate"));
          assertEquals(200, r.get(7).statusCode(), "/health needs no key");
          assertEquals(200, r.get(8).statusCode(), "/ready needs no key");
          assertOpenAiError(r.get(9), 403, "insufficient_permissions");
          assertOpenAiError(r.get(10), 401, "invalid_api_key");
          assertOpenAiError(r.get(11), 403, "insufficient_permissions");
          });
          return get("/metrics", ADMIN);
        }).onComplete(ctx.succeeding(page -> ctx.verify(() -> {
          Map<String, Double> m = PrometheusSamples.parse(page.bodyAsString());
          assertEquals(3.0, m.get("tandem_router_rejected_total{cause=\"auth_missing\"}"), page.bodyAsString());
          assertEquals(1.0, m.get("tandem_router_rejected_total{cause=\"auth_invalid\"}"));
          assertEquals(3.0, m.get("tandem_router_rejected_total{cause=\"auth_forbidden\"}"));
          assertEquals(2.0, m.get("tandem_router_e2e_seconds_count{engine=\"0\",mode=\"round-robin\"}"));
          assertEquals(2.0, m.get("tandem_router_ttft_seconds_count{engine=\"0\",mode=\"round-robin\"}"));
          assertNotNull(m.get("tandem_router_ttft_seconds_bucket{engine=\"0\",mode=\"round-robin\",le=\"0.1\"}"));
          assertEquals(2.0, m.get("tandem_router_engine_call_seconds_count{call=\"completions\",engine=\"0\",outcome=\"ok\"}"));
          assertTrue(page.bodyAsString().contains("# TYPE tandem_router_ttft_seconds histogram"));
          ctx.completeNow();
        })));
  }

  @Test
  void aKeysTokensPerMinuteAreEnforcedWithOpenAisHeaders(VertxTestContext ctx) {
    // "hello" is 5 byte tokens: 5 + 40 reserved per request against tpm=100; the fake answers 4
    complete(SMALL, 40).compose(first -> {
      ctx.verify(() -> {
        assertEquals(200, first.statusCode(), first.bodyAsString());
        assertEquals("100", first.getHeader("x-ratelimit-limit-tokens"));
        assertEquals("55", first.getHeader("x-ratelimit-remaining-tokens"));
        assertEquals(null, first.getHeader("x-ratelimit-limit-requests"), "no request limit set");
      });
      // settled on its usage (5 + 4 = 9): about 91 left, not 55; 5 + 90 does not fit
      return complete(SMALL, 90);
    }).compose(fourth -> {
          ctx.verify(() -> {
            assertOpenAiError(fourth, 429, "rate_limit_exceeded");
            assertEquals("tokens", fourth.bodyAsJsonObject().getJsonObject("error").getString("type"));
            assertNotNull(fourth.getHeader("Retry-After"));
            assertTrue(Integer.parseInt(fourth.getHeader("Retry-After")) >= 1);
            assertEquals("100", fourth.getHeader("x-ratelimit-limit-tokens"));
          });
          return complete(USER, 40); // another key is not affected
        }).compose(other -> {
          ctx.verify(() -> assertEquals(200, other.statusCode()));
          return complete(SMALL, 200);
        }).onComplete(ctx.succeeding(tooBig -> ctx.verify(() -> {
          assertOpenAiError(tooBig, 429, "rate_limit_exceeded");
          assertTrue(tooBig.bodyAsJsonObject().getJsonObject("error").getString("message")
              .contains("more than the 100 tokens per minute"), tooBig.bodyAsString());
          ctx.completeNow();
        })));
  }

  @Test
  void theBusApiTakesTheKeyFromADeliveryHeader(VertxTestContext ctx) {
    JsonObject body = new JsonObject().put("prompt", "hi").put("max_tokens", 2);
    DeliveryOptions timeout = new DeliveryOptions().setSendTimeout(10_000);
    vertx.eventBus().request(Addresses.DEFAULT.completions(), body, timeout)
        .transform(ar -> {
          ctx.verify(() -> {
            ReplyException re = (ReplyException) ar.cause();
            assertEquals(401, re.failureCode());
            assertEquals("invalid_api_key", new JsonObject(re.getMessage()).getJsonObject("error")
                .getString("code"));
          });
          return vertx.eventBus().<JsonObject>request(Addresses.DEFAULT.completions(), body,
              new DeliveryOptions(timeout).addHeader(AccessControl.BUS_HEADER, USER));
        })
        .onComplete(ctx.succeeding(reply -> ctx.verify(() -> {
          assertEquals("abcd", reply.body().getJsonArray("choices").getJsonObject(0).getString("text"));
          ctx.completeNow();
        })));
  }

  @Test
  void aKeysLimitsApplyOnTheBusTooWithTheSecondsToWait(VertxTestContext ctx) {
    DeliveryOptions small = new DeliveryOptions().setSendTimeout(10_000)
        .addHeader(AccessControl.BUS_HEADER, SMALL);
    // "hi" is 2 byte tokens; the first settles on its usage (2 + 4), leaving about 94 of the
    // key's 100 tokens per minute: 2 + 95 does not fit until the bucket refills
    JsonObject body = new JsonObject().put("prompt", "hi").put("max_tokens", 60);
    vertx.eventBus().<JsonObject>request(Addresses.DEFAULT.completions(), body, small)
        .compose(first -> vertx.eventBus().request(Addresses.DEFAULT.completions(),
            body.copy().put("max_tokens", 95), small))
        .onComplete(ctx.failing(err -> ctx.verify(() -> {
          ReplyException re = (ReplyException) err;
          assertEquals(429, re.failureCode(), re.getMessage());
          JsonObject failure = new JsonObject(re.getMessage());
          assertEquals("rate_limit_exceeded", failure.getJsonObject("error").getString("code"));
          assertEquals("tokens", failure.getJsonObject("error").getString("type"));
          assertTrue(failure.getInteger("retry_after") >= 1, failure.encode());
          ctx.completeNow();
        })));
  }
}
