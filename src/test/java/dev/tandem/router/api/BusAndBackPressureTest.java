package dev.tandem.router.api;

import static dev.tandem.config.RouterOptions.ROUTER_MODE;

import static dev.tandem.router.testing.RouterHarness.await;
import static dev.tandem.router.testing.RouterHarness.status;
import static dev.tandem.router.testing.RouterHarness.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.config.RouterMode;
import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.testing.FaultInjectingFakeEngine;
import dev.tandem.router.testing.RouterHarness;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Event-bus edge cases (cancel, missing stream address, invalid requests) and back-pressure from
 * a slow HTTP client, against a fake engine (whose streams can be made slow or huge at will).
 * Whole and streamed bus completions against real engines are in RouterEndToEndIT.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, timeUnit = TimeUnit.SECONDS)
class BusAndBackPressureTest {

  FaultInjectingFakeEngine engine;
  RouterHarness h;
  Vertx vertx;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    engine = await(new FaultInjectingFakeEngine(vertx).start());
    h = RouterHarness.start(vertx, new RouterOptions().set(ROUTER_MODE, RouterMode.ROUND_ROBIN), new ModelInfo("fake", 100_000, 1000), null);
    h.announce(status(1, engine.url(), EngineRole.BOTH, EngineState.READY, 0));
  }

  @AfterEach
  void idle() {
    waitUntil(() -> h.inFlight(1) == 0 && engine.running() == 0, 3_000, "everything idle");
    h.close();
  }

  static JsonObject request(int maxTokens) {
    return new JsonObject().put("prompt", new JsonArray().add(1).add(2)).put("max_tokens", maxTokens)
        .put("temperature", 0);
  }

  @Test
  void aStreamingBusCallerCanCancel() throws Exception {
    engine.tokenDelayMs(30);
    LinkedBlockingQueue<JsonObject> got = new LinkedBlockingQueue<>();
    await(vertx.eventBus().<JsonObject>consumer("test.stream", m -> got.add(m.body())).completion());
    await(vertx.eventBus().request(Addresses.COMPLETIONS, request(500).put("stream", true),
        new DeliveryOptions().addHeader(BusCompletionsEndpoint.STREAM_ADDRESS_HEADER, "test.stream")));
    JsonObject first = got.poll(10, TimeUnit.SECONDS);
    assertTrue(first.getJsonArray("choices").size() == 1, first.encode());
    vertx.eventBus().send("test.stream" + BusCompletionsEndpoint.CANCEL_SUFFIX, "stop");
    waitUntil(() -> engine.running() == 0, 1_000, "the engine request aborted");
    assertEquals(1, engine.abortedByClient());
    JsonObject last;
    do {
      last = got.poll(5, TimeUnit.SECONDS);
    } while (last != null && !last.containsKey("done") && !last.containsKey("error"));
    assertFalse(last != null && last.containsKey("done"), "a cancelled stream does not end as done");
  }

  @Test
  void busRequestsAreValidatedAndStreamsNeedAnAddress() throws Exception {
    ReplyException bad = assertReplyFailure(vertx.eventBus().request(Addresses.COMPLETIONS,
        new JsonObject().put("prompt", "x").put("top_p", 7)));
    assertEquals(400, bad.failureCode());
    assertEquals("top_p", new JsonObject(bad.getMessage()).getJsonObject("error").getString("param"));
    ReplyException noAddress = assertReplyFailure(vertx.eventBus().request(Addresses.COMPLETIONS,
        request(3).put("stream", true)));
    assertEquals(400, noAddress.failureCode());
    ReplyException notJson = assertReplyFailure(vertx.eventBus().request(Addresses.COMPLETIONS, "{oops"));
    assertEquals(400, notJson.failureCode());
    assertEquals(0, engine.completionRequests());
  }

  static ReplyException assertReplyFailure(io.vertx.core.Future<?> f) throws Exception {
    Throwable t = f.toCompletionStage().toCompletableFuture().handle((ok, err) -> err).get(10, TimeUnit.SECONDS);
    if (t instanceof java.util.concurrent.CompletionException) {
      t = t.getCause();
    }
    return (ReplyException) t;
  }

  @Test
  void aClientThatDoesNotReadPausesTheEngineInsteadOfFillingTheRoutersMemory() throws Exception {
    engine.padding(20_000).tokenDelayMs(1);
    int tokens = 1000; // about 20 MB of SSE: more than every socket buffer between them
    try (Socket client = new Socket("127.0.0.1", h.port())) {
      String body = request(tokens).put("stream", true).encode();
      OutputStream out = client.getOutputStream();
      out.write(("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body)
          .getBytes(StandardCharsets.UTF_8));
      out.flush();
      waitUntil(engine::sawBackPressure, 20_000, "the engine to feel the slow client");
      // now read it all: the stream completes, nothing lost
      InputStream in = client.getInputStream();
      byte[] buf = new byte[1 << 16];
      long total = 0;
      String tail = "";
      int n;
      while ((n = in.read(buf)) > 0) {
        total += n;
        tail = (tail + new String(buf, 0, n, StandardCharsets.ISO_8859_1));
        tail = tail.substring(Math.max(0, tail.length() - 64));
        if (tail.contains("data: [DONE]")) {
          break;
        }
      }
      assertTrue(tail.contains("data: [DONE]"), "complete stream");
      assertTrue(total > (long) tokens * 20_000, "every byte arrived: " + total);
    }
  }
}
