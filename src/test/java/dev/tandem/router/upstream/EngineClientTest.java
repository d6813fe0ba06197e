package dev.tandem.router.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.FastJson;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SelfSignedCertificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The router's engine connections ({@link EngineClient} over {@link EngineConnectionPool}) against
 * a <b>fake engine</b>: a plain Vert.x HTTP server on loopback whose paths misbehave on purpose
 * (close before answering, break mid-stream, never answer, say {@code Connection: close}, write
 * faster than the router reads), which a real engine does not do on demand. The relay's behaviour
 * over real engines is the integration tests'.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EngineClientTest {

  private static final JsonObject BODY = new JsonObject().put("prompt", new JsonArray().add(1));

  private Vertx vertx;
  private HttpServer server;
  private String baseUrl;
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger openConnections = new AtomicInteger();
  private final List<String> paths = new CopyOnWriteArrayList<>();
  private final AtomicBoolean writeQueueFilled = new AtomicBoolean();
  private final List<HttpServerResponse> held = new CopyOnWriteArrayList<>();
  private final Promise<Void> hungClosed = Promise.promise();
  private EngineClient client;

  @BeforeEach
  void start() throws Exception {
    // one event loop: the test's calls, its runOnContext and the connections share it
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0))
        .connectionHandler(conn -> {
          connections.incrementAndGet();
          openConnections.incrementAndGet();
          conn.closeHandler(v -> openConnections.decrementAndGet());
        })
        .requestHandler(req -> req.body().onSuccess(b -> answer(req)));
    await(server.listen());
    baseUrl = "http://127.0.0.1:" + server.actualPort();
    client = new EngineClient(vertx, 2000, 2);
  }

  @AfterEach
  void stop() throws Exception {
    await(client.close());
    await(vertx.close());
  }

  private void answer(HttpServerRequest req) {
    paths.add(req.path());
    HttpServerResponse resp = req.response();
    switch (req.path()) {
      case "/json" -> resp.putHeader("content-type", "application/json").end("{\"ok\":true}");
      case "/json-close" -> resp.putHeader("connection", "close").end("{\"ok\":true}");
      case "/status" -> resp.setStatusCode(400).end(
          "{\"error\":{\"message\":\"bad prompt\",\"type\":\"invalid_request_error\"}}");
      case "/close-first" -> req.connection().close();
      case "/break" -> {
        resp.setChunked(true).write(chunk(0));
        vertx.setTimer(50, t -> req.connection().close());
      }
      case "/hang" -> resp.closeHandler(v -> hungClosed.tryComplete());
      case "/held" -> {
        resp.setChunked(true).write(chunk(0));
        held.add(resp);
      }
      case "/flood" -> flood(resp, 0);
      case "/drip" -> drip(resp, 0); // a chunk every 100 ms, six of them, then silence

      default -> resp.setStatusCode(404).end();
    }
  }

  private static final int FLOOD_CHUNKS = 40_000;

  /** Writes while the socket takes it; notes when the router stopped reading. */
  private void flood(HttpServerResponse resp, int from) {
    if (from == 0) {
      resp.setChunked(true);
    }
    int i = from;
    while (i < FLOOD_CHUNKS && !resp.writeQueueFull()) {
      resp.write(chunk(i++));
    }
    if (i == FLOOD_CHUNKS) {
      resp.end("data: [DONE]\n\n");
      return;
    }
    writeQueueFilled.set(true);
    int next = i;
    resp.drainHandler(v -> flood(resp, next));
  }

  private void drip(HttpServerResponse resp, int i) {
    if (i == 0) {
      resp.setChunked(true);
    }
    resp.write(chunk(i));
    if (i < 5) {
      vertx.setTimer(100, t -> drip(resp, i + 1));
    }
  }

  private static String chunk(int i) {
    return "data: {\"choices\":[{\"index\":0,\"text\":\"t" + i
        + " padding padding padding padding padding padding padding padding\",\"finish_reason\":null}]}\n\n";
  }

  @Test
  void callsReuseOneKeepAliveConnectionUnlessTheEngineSaysClose() throws Exception {
    for (int i = 0; i < 5; i++) {
      assertTrue(await(call("/json")).getBoolean("ok"));
    }
    assertEquals(1, connections.get(), "five calls in a row, one connection");
    await(call("/json-close"));
    await(call("/json"));
    assertEquals(2, connections.get(), "a Connection: close answer is not reused");
  }

  @Test
  void anEngineErrorKeepsItsStatusAndMessage() throws Exception {
    UpstreamException e = assertInstanceOf(UpstreamException.class, failure(call("/status")));
    assertEquals(UpstreamException.Kind.REJECTED, e.kind());
    assertEquals(400, e.status());
    assertTrue(e.getMessage().contains("bad prompt"), e.getMessage());
    assertTrue(await(call("/json")).getBoolean("ok"));
    assertEquals(1, connections.get(), "the error answer's connection is reused");
  }

  @Test
  void aConnectionClosedBeforeTheAnswerIsUnreachableAfterItBroken() throws Exception {
    UpstreamException before = assertInstanceOf(UpstreamException.class, failure(call("/close-first")));
    assertEquals(UpstreamException.Kind.UNREACHABLE, before.kind());
    EngineStream stream = await(open("/break", Cancellation.NONE));
    List<String> texts = new java.util.concurrent.CopyOnWriteArrayList<>();
    // on the loop, as the router starts streams: the break may come while it is paused, and a
    // resume from another thread could miss it (it did once, under two test forks)
    vertx.runOnContext(v -> stream.start(c -> texts.add(c.choices().get(0).text())));
    UpstreamException during = assertInstanceOf(UpstreamException.class, failure(stream.end()));
    assertEquals(UpstreamException.Kind.BROKEN, during.kind());
    assertEquals(1, texts.size(), "the chunk before the break was delivered");
    UpstreamException down = assertInstanceOf(UpstreamException.class,
        failure(client.postJson(0, "http://127.0.0.1:1", "/json", BODY, "test", 5000, Cancellation.NONE)));
    assertEquals(UpstreamException.Kind.UNREACHABLE, down.kind());
  }

  @Test
  void cancellingResetsTheEngineRequestAndATimeoutToo() throws Exception {
    Cancellation cancel = new Cancellation();
    Future<JsonObject> call = client.postJson(0, baseUrl, "/hang", BODY, "test", 30_000, cancel);
    waitFor(() -> paths.contains("/hang"));
    vertx.runOnContext(v -> cancel.cancel());
    assertInstanceOf(ClientGoneException.class, failure(call));
    await(hungClosed.future()); // the engine saw its connection closed: it would abort
    UpstreamException timeout = assertInstanceOf(UpstreamException.class,
        failure(client.postJson(0, baseUrl, "/hang", BODY, "test", 200, Cancellation.NONE)));
    assertEquals(UpstreamException.Kind.TIMEOUT, timeout.kind());
    waitFor(() -> openConnections.get() == 0);
  }

  @Test
  void aPausedStreamStopsReadingTheSocketAndLosesNothing() throws Exception {
    EngineStream stream = await(open("/flood", Cancellation.NONE));
    waitFor(writeQueueFilled::get); // not started: the router reads nothing, the engine's writes back up
    AtomicInteger chunks = new AtomicInteger();
    AtomicInteger order = new AtomicInteger();
    vertx.runOnContext(v -> stream.start(c -> {
      if (c.choices().get(0).text().startsWith("t" + order.get() + " ")) {
        order.incrementAndGet();
      }
      if (chunks.incrementAndGet() % 1000 == 0) {
        stream.pause(); // the relay's back-pressure: a slow client, then it drains
        vertx.setTimer(2, t -> stream.resume());
      }
    }));
    assertTrue(await(stream.end()), "[DONE] seen");
    assertEquals(FLOOD_CHUNKS, chunks.get());
    assertEquals(FLOOD_CHUNKS, order.get(), "every chunk, in order");
  }

  @Test
  void aStreamTimesOutAnIdleTimeoutAfterItsLastChunkNotBefore() throws Exception {
    // the idle timer is armed once per idle period and checks the last data when it fires: the
    // chunks 100 ms apart must not trip a 250 ms limit, the silence after the last one must
    long opened = System.nanoTime();
    EngineStream stream = await(client.openStream(0, baseUrl, "/drip", FastJson.toBuffer(BODY),
        "test", 10_000, 250, Cancellation.NONE));
    List<Long> arrivals = new CopyOnWriteArrayList<>();
    vertx.runOnContext(v -> stream.start(c -> arrivals.add(System.nanoTime())));
    UpstreamException e = assertInstanceOf(UpstreamException.class, failure(stream.end()));
    long failedAfterLastMs = (System.nanoTime() - arrivals.get(arrivals.size() - 1)) / 1_000_000;
    assertEquals(UpstreamException.Kind.TIMEOUT, e.kind());
    assertTrue(e.getMessage().contains("silence between chunks"), e.getMessage());
    assertEquals(6, arrivals.size(), "every chunk came before the timeout");
    assertTrue(failedAfterLastMs >= 240 && failedAfterLastMs < 2_000,
        "the limit counts from the last chunk: " + failedAfterLastMs + " ms");
    assertTrue((System.nanoTime() - opened) / 1_000_000 >= 750, "six chunks 100 ms apart, then 250");
    waitFor(() -> openConnections.get() == 0); // the timed-out request was reset
  }

  /**
   * Each socket read's chunks are delivered on the router's context, and what waits for the end
   * of the read ({@link EngineReads#afterThisRead}: the client output's one write) runs after that
   * read's last chunk and before the next read's first. The drip's chunks come 100 ms apart, a
   * read each: chunk, end, chunk, end. Outside a read nothing waits.
   */
  @Test
  void workForTheEndOfAReadRunsAfterItsLastChunk() throws Exception {
    EngineStream stream = await(client.openStream(0, baseUrl, "/drip", FastJson.toBuffer(BODY),
        "test", 10_000, 400, Cancellation.NONE));
    List<String> seen = new CopyOnWriteArrayList<>();
    AtomicBoolean outside = new AtomicBoolean(true);
    vertx.runOnContext(v -> {
      outside.set(EngineReads.afterThisRead(() -> seen.add("never")));
      boolean[] waiting = {false};
      stream.start(c -> {
        seen.add(Vertx.currentContext() == null ? "no context" : "chunk");
        if (!waiting[0]) {
          waiting[0] = EngineReads.afterThisRead(() -> {
            waiting[0] = false;
            seen.add("end");
          });
        }
      });
    });
    failure(stream.end()); // the drip ends in silence: the idle timeout
    assertFalse(outside.get(), "no engine read was being handled");
    assertEquals(List.of("chunk", "end", "chunk", "end", "chunk", "end", "chunk", "end", "chunk",
        "end", "chunk", "end"), seen);
  }

  @Test
  void callsBeyondThePoolWaitForAConnection() throws Exception {
    EngineStream first = await(open("/held", Cancellation.NONE));
    EngineStream second = await(open("/held", Cancellation.NONE));
    Future<JsonObject> third = call("/json");
    Thread.sleep(300);
    assertFalse(third.isComplete(), "two connections per engine, both busy");
    assertEquals(2, connections.get());
    vertx.runOnContext(v -> {
      first.start(c -> {});
      second.start(c -> {});
      held.get(0).end();
    });
    assertTrue(await(third).getBoolean("ok"));
    assertFalse(await(first.end()), "ended without [DONE]");
    assertEquals(2, connections.get(), "the third call took the freed connection");
    vertx.runOnContext(v -> held.get(1).end());
    await(second.end());
  }

  @Test
  void anHttpsEngineIsVerified() throws Exception {
    SelfSignedCertificate cert = SelfSignedCertificate.create("localhost");
    HttpServer tls = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0)
            .setSsl(true).setKeyCertOptions(cert.keyCertOptions()))
        .requestHandler(req -> req.response().end("{\"ok\":true}"));
    await(tls.listen());
    UpstreamException e = assertInstanceOf(UpstreamException.class, failure(client.postJson(0,
        "https://127.0.0.1:" + tls.actualPort(), "/json", BODY, "test", 5000, Cancellation.NONE)));
    assertEquals(UpstreamException.Kind.UNREACHABLE, e.kind());
    assertTrue(e.getMessage().toLowerCase().contains("certif")
        || String.valueOf(e.getCause()).toLowerCase().contains("certif"), e.getMessage());
    cert.delete();
  }

  private Future<JsonObject> call(String path) {
    return client.postJson(0, baseUrl, path, BODY, "test", 5000, Cancellation.NONE);
  }

  private Future<EngineStream> open(String path, Cancellation cancel) {
    return client.openStream(0, baseUrl, path, FastJson.toBuffer(BODY), "test", 10_000, 10_000,
        cancel);
  }

  private static void waitFor(java.util.function.BooleanSupplier condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met in 20 s");
      }
      Thread.sleep(10);
    }
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static Throwable failure(Future<?> future) throws Exception {
    return await(future.transform(ar -> Future.succeededFuture(ar.failed() ? ar.cause()
        : new AssertionError("expected a failure, got " + ar.result()))));
  }
}
