package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The relay floor passes the null engine's answers on unchanged, and fails when it cannot. */
@ExtendWith(VertxExtension.class)
class RelayFloorServerTest {

  private static final String STREAM = "{\"prompt\":[3,4,5],\"max_tokens\":6,\"stream\":true,"
      + "\"stream_options\":{\"include_usage\":true}}";
  private static final String PLAIN = "{\"prompt\":[3,4,5],\"max_tokens\":6}";

  private static Future<HttpResponse<Buffer>> post(WebClient client, int port, String body) {
    return client.post(port, "127.0.0.1", "/v1/completions").putHeader("content-type", "application/json")
        .sendBuffer(Buffer.buffer(body));
  }

  /** The engine's own timings differ per answer; everything else must be byte for byte. */
  private static String withoutTimings(Buffer body) {
    return body.toString().replaceAll("\"(ttft_s|end_to_end_latency_s)\":[0-9.Ee-]+", "\"$1\":T");
  }

  @Test
  @Timeout(value = 30, timeUnit = TimeUnit.SECONDS)
  void relaysEveryAnswerUnchangedOverKeptConnections(Vertx vertx, VertxTestContext ctx) {
    NullEngineServer engine = new NullEngineServer("127.0.0.1", 0, 0, 0, new AtomicInteger());
    WebClient client = WebClient.create(vertx);
    vertx.deployVerticle(engine).compose(id -> {
      RelayFloorServer floor = new RelayFloorServer("127.0.0.1", 0, engine.actualPort());
      return vertx.deployVerticle(floor).compose(id2 -> {
        int e = engine.actualPort();
        int f = floor.actualPort();
        return post(client, e, STREAM).compose(direct -> post(client, f, STREAM)
            .compose(relayed -> post(client, f, STREAM).map(again -> {
              ctx.verify(() -> {
                assertEquals(200, relayed.statusCode());
                assertEquals(direct.getHeader("content-type"), relayed.getHeader("content-type"));
                assertTrue(relayed.bodyAsString().endsWith("data: [DONE]\n\n"), relayed.bodyAsString());
                assertEquals(withoutTimings(direct.body()), withoutTimings(relayed.body()));
                assertEquals(withoutTimings(direct.body()), withoutTimings(again.body()));
              });
              return f;
            })))
            .compose(x -> post(client, e, PLAIN).compose(direct -> post(client, f, PLAIN).map(relayed -> {
              ctx.verify(() -> assertEquals(withoutTimings(direct.body()), withoutTimings(relayed.body())));
              return f;
            })))
            .compose(x -> client.get(f, "127.0.0.1", "/v1/models").send().map(models -> {
              ctx.verify(() -> assertEquals("null-engine",
                  models.bodyAsJsonObject().getJsonArray("data").getJsonObject(0).getString("id")));
              return f;
            }));
      });
    }).onComplete(ctx.succeeding(x -> ctx.completeNow()));
  }

  /** Tokens one write apart reach the floor in several reads: each read is relayed as it came. */
  @Test
  @Timeout(value = 30, timeUnit = TimeUnit.SECONDS)
  void relaysAnAnswerThatArrivesInManyReads(Vertx vertx, VertxTestContext ctx) {
    NullEngineServer engine = new NullEngineServer("127.0.0.1", 0, 0, 2, new AtomicInteger());
    WebClient client = WebClient.create(vertx);
    vertx.deployVerticle(engine).compose(id -> {
      RelayFloorServer floor = new RelayFloorServer("127.0.0.1", 0, engine.actualPort());
      return vertx.deployVerticle(floor).compose(id2 -> post(client, engine.actualPort(), STREAM)
          .compose(direct -> post(client, floor.actualPort(), STREAM).map(relayed -> {
            ctx.verify(() -> {
              assertEquals(200, relayed.statusCode());
              assertEquals(withoutTimings(direct.body()), withoutTimings(relayed.body()));
              assertTrue(relayed.bodyAsString().endsWith("data: [DONE]\n\n"), relayed.bodyAsString());
            });
            return relayed;
          })));
    }).onComplete(ctx.succeeding(x -> ctx.completeNow()));
  }

  @Test
  @Timeout(value = 30, timeUnit = TimeUnit.SECONDS)
  void anUpstreamThatIsNotThereIsA502(Vertx vertx, VertxTestContext ctx) throws Exception {
    int nothing;
    try (ServerSocket s = new ServerSocket(0)) {
      nothing = s.getLocalPort();
    }
    RelayFloorServer floor = new RelayFloorServer("127.0.0.1", 0, nothing);
    WebClient client = WebClient.create(vertx);
    vertx.deployVerticle(floor).compose(id -> post(client, floor.actualPort(), STREAM))
        .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
          assertEquals(502, r.statusCode());
          ctx.completeNow();
        })));
  }
}
