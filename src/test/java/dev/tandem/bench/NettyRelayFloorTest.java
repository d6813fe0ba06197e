package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.VertxInternal;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Netty-only relay floor passes the null engine's answers on unchanged (whole, and arriving
 * in many reads), request after request, and answers 502 when there is no upstream.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NettyRelayFloorTest {

  private static final String STREAM = "{\"prompt\":[3,4,5],\"max_tokens\":6,\"stream\":true,"
      + "\"stream_options\":{\"include_usage\":true}}";
  private static final String PLAIN = "{\"prompt\":[3,4,5],\"max_tokens\":6}";

  private Vertx vertx;
  private WebClient client;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    client = WebClient.create(vertx);
  }

  @AfterEach
  void stop() throws Exception {
    await(vertx.close());
  }

  private HttpResponse<Buffer> post(int port, String body) throws Exception {
    return await(client.post(port, "127.0.0.1", "/v1/completions")
        .putHeader("content-type", "application/json").sendBuffer(Buffer.buffer(body)));
  }

  /** The engine's own timings differ per answer; everything else must be byte for byte. */
  private static String withoutTimings(Buffer body) {
    return body.toString().replaceAll("\"(ttft_s|end_to_end_latency_s)\":[0-9.Ee-]+", "\"$1\":T");
  }

  private int engine(int tokenGapMs) throws Exception {
    NullEngineServer engine = new NullEngineServer("127.0.0.1", 0, 0, tokenGapMs, new AtomicInteger());
    await(vertx.deployVerticle(engine));
    return engine.actualPort();
  }

  private int floor(int upstreamPort) throws Exception {
    return new NettyRelayFloor((VertxInternal) vertx, "127.0.0.1", 0, upstreamPort).start()
        .actualPort();
  }

  @Test
  void relaysEveryAnswerUnchanged() throws Exception {
    int e = engine(0);
    int f = floor(e);
    HttpResponse<Buffer> direct = post(e, STREAM);
    for (int i = 0; i < 3; i++) {
      HttpResponse<Buffer> relayed = post(f, STREAM);
      assertEquals(200, relayed.statusCode());
      assertEquals(direct.getHeader("content-type"), relayed.getHeader("content-type"));
      assertTrue(relayed.bodyAsString().endsWith("data: [DONE]\n\n"), relayed.bodyAsString());
      assertEquals(withoutTimings(direct.body()), withoutTimings(relayed.body()));
    }
    assertEquals(withoutTimings(post(e, PLAIN).body()), withoutTimings(post(f, PLAIN).body()));
    HttpResponse<Buffer> models = await(client.get(f, "127.0.0.1", "/v1/models").send());
    assertEquals("null-engine",
        models.bodyAsJsonObject().getJsonArray("data").getJsonObject(0).getString("id"));
  }

  /** Tokens one write apart reach the floor in several reads: each read is relayed as it came. */
  @Test
  void relaysAnAnswerThatArrivesInManyReads() throws Exception {
    int e = engine(2);
    int f = floor(e);
    HttpResponse<Buffer> direct = post(e, STREAM);
    HttpResponse<Buffer> relayed = post(f, STREAM);
    assertEquals(200, relayed.statusCode());
    assertEquals("chunked", relayed.getHeader("transfer-encoding"), "sent as it came, not gathered");
    assertEquals(withoutTimings(direct.body()), withoutTimings(relayed.body()));
    assertTrue(relayed.bodyAsString().endsWith("data: [DONE]\n\n"), relayed.bodyAsString());
  }

  @Test
  void anUpstreamThatIsNotThereIsA502() throws Exception {
    int nothing;
    try (ServerSocket s = new ServerSocket(0)) {
      nothing = s.getLocalPort();
    }
    assertEquals(502, post(floor(nothing), STREAM).statusCode());
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }
}
