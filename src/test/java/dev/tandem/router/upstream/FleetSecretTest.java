package dev.tandem.router.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.FleetSecret;
import dev.tandem.engine.sched.ByteTokenizer;
import dev.tandem.engine.sched.ChainedHashModel;
import dev.tandem.engine.sched.Engine;
import dev.tandem.engine.sched.EngineOptions;
import dev.tandem.engine.server.EngineServerConfig;
import dev.tandem.engine.server.EngineServerVerticle;
import dev.tandem.engine.model.CoreBudget;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A builtin engine server given the fleet's secret answers only callers that send it (401 in
 * OpenAI's shape otherwise, /health included), and the router's {@link EngineClient} sends it
 * once told. The server listens on loopback here (tests bind nothing else); whether an engine
 * gets a secret at all is the supervisor's rule (FleetSecretsTest).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FleetSecretTest {
  private static final String SECRET = "s3cret-of-this-fleet-0123456789";
  private static Vertx vertx;
  private static Engine engine;
  private static String baseUrl;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    engine = new Engine(new ChainedHashModel(1024), new ByteTokenizer(),
        new EngineOptions(4, 64, 32, 256, true, Duration.ofSeconds(60)));
    engine.start();
    EngineServerVerticle server = new EngineServerVerticle(engine, new ByteTokenizer(), null,
        new EngineServerConfig("127.0.0.1", 0, "stand-in", true,
            EngineServerConfig.DEFAULT_CLIENT_STALL_LIMIT, CoreBudget.all(), SECRET));
    await(vertx.deployVerticle(server));
    baseUrl = "http://127.0.0.1:" + server.actualPort();
  }

  @AfterAll
  static void stop() throws Exception {
    engine.close();
    await(vertx.close());
  }

  @Test
  void aCallerWithoutTheSecretIsRefusedInOpenAisShape() throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    for (String header : new String[] {null, "wrong", SECRET.substring(1)}) {
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + "/health"));
      if (header != null) {
        request.header(FleetSecret.HEADER, header);
      }
      HttpResponse<String> reply = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(401, reply.statusCode(), "header " + header);
      JsonObject error = new JsonObject(reply.body()).getJsonObject("error");
      assertEquals("fleet_secret_required", error.getString("code"));
      assertTrue(error.getString("message").contains(FleetSecret.HEADER), reply.body());
    }
    HttpResponse<String> ok = http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/health"))
        .header(FleetSecret.HEADER, SECRET).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, ok.statusCode());
  }

  @Test
  void theRoutersClientSendsTheSecretOnceTold() throws Exception {
    EngineClient client = new EngineClient(vertx, 2000, 4);
    JsonObject body = new JsonObject().put("prompt", new io.vertx.core.json.JsonArray().add(1)
        .add(2).add(3)).put("max_tokens", 3).put("temperature", 0);
    Throwable refused = awaitFailure(client.postJson(0, baseUrl, "/v1/completions", body,
        "completion", 5000, Cancellation.NONE));
    assertTrue(refused instanceof UpstreamException, refused.toString());
    assertTrue(refused.getMessage().contains(FleetSecret.HEADER), refused.getMessage());
    client.fleetSecret(SECRET);
    JsonObject answer = await(client.postJson(0, baseUrl, "/v1/completions", body, "completion",
        5000, Cancellation.NONE));
    assertEquals(1, answer.getJsonArray("choices").size());
    await(client.close());
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  private static Throwable awaitFailure(Future<?> future) throws Exception {
    return await(future.transform(ar -> Future.succeededFuture(ar.failed() ? ar.cause()
        : new AssertionError("expected a failure, got " + ar.result()))));
  }
}
