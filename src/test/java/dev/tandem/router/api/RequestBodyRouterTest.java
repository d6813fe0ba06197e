package dev.tandem.router.api;

import static dev.tandem.config.RouterOptions.MAX_BODY_BYTES;
import static dev.tandem.config.RouterOptions.ROUTER_HOST;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.config.RouterMode;
import dev.tandem.config.RouterOptions;
import dev.tandem.engine.sched.ByteTokenizer;
import dev.tandem.router.RouterVerticle;
import dev.tandem.router.testing.ScriptedAnswerEngine;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the router does with a completion request's body before any engine sees it: the
 * {@code --max-body-bytes} limit (declared or streamed), bodies that are not a JSON object, other
 * methods, a trailing slash. The engine is the scripted fake: it records what reached it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RequestBodyRouterTest {

  private static final int LIMIT = 2048;

  private Vertx vertx;
  private ScriptedAnswerEngine engine;
  private HttpClient http;
  private int port;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    engine = new ScriptedAnswerEngine(vertx, List.of("a", "b"));
    RouterOptions options = new RouterOptions().set(ROUTER_HOST, "127.0.0.1").set(ROUTER_PORT, 0)
        .set(ROUTER_MODE, RouterMode.ROUND_ROBIN).set(MAX_BODY_BYTES, LIMIT);
    RouterVerticle router = new RouterVerticle(options, new ModelInfo("fake", 100_000, 0),
        new ByteTokenizer());
    await(engine.start().compose(e -> vertx.deployVerticle(router)));
    port = router.actualPort();
    vertx.eventBus().publish(Addresses.DEFAULT.engineStatus(), new EngineStatus(0, engine.url(),
        EngineRole.BOTH, 0, 1, EngineState.READY, 0, null).toJson());
    http = vertx.createHttpClient();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (send(HttpMethod.GET, "/ready", null, false).status() != 200) {
      assertTrue(System.nanoTime() < deadline, "router not ready");
      Thread.sleep(20);
    }
  }

  @AfterEach
  void stop() throws Exception {
    await(vertx.close());
  }

  private record Reply(int status, JsonObject json) {
    String code() {
      return json.getJsonObject("error").getString("code");
    }

    String message() {
      return json.getJsonObject("error").getString("message");
    }
  }

  /**
   * The body is asked for in the same callback that gets the response, on its event loop: asked
   * for from a later callback, one registered from this thread after the response ended, it never
   * completes (Vert.x 5.0.7's HttpClientResponse, eclipse-vertx/vert.x#6038).
   */
  private Reply send(HttpMethod method, String path, String body, boolean chunked) throws Exception {
    return await(http.request(new RequestOptions().setMethod(method).setHost("127.0.0.1")
            .setPort(port).setURI(path))
        .compose(req -> {
          Future<HttpClientResponse> resp;
          if (body == null) {
            resp = req.send();
          } else if (chunked) {
            req.setChunked(true);
            for (int i = 0; i < body.length(); i += 500) {
              req.write(body.substring(i, Math.min(body.length(), i + 500)));
            }
            resp = req.end().compose(v -> req.response());
          } else {
            resp = req.send(body);
          }
          return resp.compose(r -> r.body().map(b -> new Reply(r.statusCode(),
              b.length() > 0 && b.getByte(0) == '{' ? b.toJsonObject() : new JsonObject())));
        }));
  }

  private static String completion(int padding) {
    return new JsonObject().put("prompt", "hi").put("max_tokens", 2)
        .put("user", "x".repeat(padding)).encode();
  }

  @Test
  void aBodyOverTheLimitIsA413WhetherDeclaredOrStreamed() throws Exception {
    for (boolean chunked : new boolean[] {false, true}) {
      for (String path : new String[] {"/v1/completions", "/v1/chat/completions"}) {
        Reply r = send(HttpMethod.POST, path, completion(LIMIT), chunked);
        assertEquals(413, r.status(), path + " chunked=" + chunked);
        assertEquals("request_too_large", r.code());
        assertTrue(r.message().contains(LIMIT + " bytes"), r.message());
      }
    }
    assertEquals(200, send(HttpMethod.POST, "/v1/completions", completion(LIMIT - 200), true).status(),
        "a streamed body under the limit is served");
    assertEquals(1, engine.generations().size(), "only the request under the limit reached the engine");
    // its chunks (500 characters each) were joined in order: the fields around them survived
    assertEquals(2, engine.generations().get(0).getInteger("max_tokens"));
  }

  @Test
  void aBodyThatIsNotAJsonObjectIsRefusedBeforeAnyEngine() throws Exception {
    Reply array = send(HttpMethod.POST, "/v1/completions", "[1, 2]", false);
    assertEquals(400, array.status());
    assertEquals("invalid_json", array.code());
    assertTrue(array.message().contains("must be a JSON object"), array.message());
    Reply broken = send(HttpMethod.POST, "/v1/completions", "{\"prompt\": [1, 2", false);
    assertEquals(400, broken.status());
    assertTrue(broken.message().contains("not valid JSON"), broken.message());
    Reply empty = send(HttpMethod.POST, "/v1/completions", "", false);
    assertEquals(400, empty.status());
    assertEquals("invalid_json", empty.code());
    assertTrue(engine.received().isEmpty(), "no engine saw an invalid body");
  }

  @Test
  void otherMethodsAreRefusedAndATrailingSlashIsServed() throws Exception {
    Reply get = send(HttpMethod.GET, "/v1/completions", null, false);
    assertEquals(405, get.status());
    assertEquals("method_not_allowed", get.code());
    Reply slash = send(HttpMethod.POST, "/v1/completions/", completion(10), false);
    assertEquals(200, slash.status(), String.valueOf(slash.json()));
    assertEquals("ab", slash.json().getJsonArray("choices").getJsonObject(0).getString("text"));
    Reply tooLarge = send(HttpMethod.POST, "/v1/completions/", completion(LIMIT), false);
    assertEquals(413, tooLarge.status());
    assertEquals("request_too_large", tooLarge.code());
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }
}
