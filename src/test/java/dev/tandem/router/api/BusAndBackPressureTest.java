package dev.tandem.router.api;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.Addresses;
import dev.tandem.router.testing.FaultInjectingFakeEngine;
import dev.tandem.router.testing.RouterHarness;
import dev.tandem.testing.Failures;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
  void setUp(Vertx vertx, VertxTestContext ctx) {
    this.vertx = vertx;
    engine = new FaultInjectingFakeEngine(vertx);
    RouterHarness.roundRobinBefore(vertx, engine).onSuccess(router -> h = router)
        .<Void>mapEmpty().onComplete(ctx.succeedingThenComplete());
  }

  @AfterEach
  void idle(VertxTestContext ctx) {
    if (h == null) {
      ctx.completeNow();
      return;
    }
    h.closeWhenIdle(engine, 3_000).onComplete(ctx.succeedingThenComplete());
  }

  static JsonObject request(int maxTokens) {
    return new JsonObject().put("prompt", new JsonArray().add(1).add(2)).put("max_tokens", maxTokens)
        .put("temperature", 0);
  }

  @Test
  void aStreamingBusCallerCanCancel(VertxTestContext ctx) {
    engine.tokenDelayMs(30);
    List<JsonObject> got = new CopyOnWriteArrayList<>();
    Promise<Void> cancelled = Promise.promise();
    MessageConsumer<JsonObject> chunks = vertx.eventBus().consumer("test.stream", m -> {
      got.add(m.body());
      if (got.size() == 1) {
        ctx.verify(() -> assertEquals(1, m.body().getJsonArray("choices").size(), m.body().encode()));
        vertx.eventBus().send("test.stream" + BusCompletionsEndpoint.CANCEL_SUFFIX, "stop");
        cancelled.complete();
      }
    });
    chunks.completion()
        .compose(v -> vertx.eventBus().request(Addresses.DEFAULT.completions(), request(500).put("stream", true),
            new DeliveryOptions().addHeader(BusCompletionsEndpoint.STREAM_ADDRESS_HEADER, "test.stream")))
        .compose(ack -> cancelled.future())
        .compose(v -> h.untilTrue("the engine request aborted", 1_000, () -> engine.running() == 0))
        .compose(v -> {
          ctx.verify(() -> assertEquals(1, engine.abortedByClient()));
          return vertx.timer(300); // time for a last chunk that must not be "done"
        })
        .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
          assertTrue(got.stream().noneMatch(m -> m.containsKey("done")),
              "a cancelled stream does not end as done: " + got);
          ctx.completeNow();
        })));
  }

  @Test
  void busRequestsAreValidatedAndStreamsNeedAnAddress(VertxTestContext ctx) {
    Failures.of(vertx.eventBus().request(Addresses.DEFAULT.completions(),
            new JsonObject().put("prompt", "x").put("top_p", 7)))
        .compose(bad -> {
          ctx.verify(() -> {
            assertEquals(400, ((ReplyException) bad).failureCode());
            assertEquals("top_p", new JsonObject(bad.getMessage()).getJsonObject("error").getString("param"));
          });
          return Failures.of(vertx.eventBus().request(Addresses.DEFAULT.completions(), request(3).put("stream", true)));
        })
        .compose(noAddress -> {
          ctx.verify(() -> assertEquals(400, ((ReplyException) noAddress).failureCode()));
          return Failures.of(vertx.eventBus().request(Addresses.DEFAULT.completions(), "{oops"));
        })
        .onComplete(ctx.succeeding(notJson -> ctx.verify(() -> {
          assertEquals(400, ((ReplyException) notJson).failureCode());
          assertEquals(0, engine.completionRequests());
          ctx.completeNow();
        })));
  }

  @Test
  void aClientThatDoesNotReadPausesTheEngineInsteadOfFillingTheRoutersMemory(VertxTestContext ctx) {
    engine.padding(20_000).tokenDelayMs(1);
    int tokens = 1000; // about 20 MB of SSE: more than every socket buffer between them
    String body = request(tokens).put("stream", true).encode();
    String head = "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n";
    long[] total = {0};
    StringBuilder tail = new StringBuilder();
    vertx.createNetClient().connect(h.port(), "127.0.0.1").compose(socket -> {
      Promise<Void> done = Promise.promise();
      socket.handler(buf -> {
        total[0] += buf.length();
        tail.append(buf.toString(StandardCharsets.ISO_8859_1));
        tail.delete(0, Math.max(0, tail.length() - 64));
        if (tail.indexOf("data: [DONE]") >= 0) {
          done.tryComplete();
        }
      });
      socket.closeHandler(v -> done.tryFail(new AssertionError("closed before [DONE] after "
          + total[0] + " bytes")));
      socket.pause(); // a client that reads nothing yet
      return socket.write(head + body)
          .compose(v -> h.untilTrue("the engine to feel the slow client", 20_000, engine::sawBackPressure))
          .compose(v -> {
            socket.resume(); // now read it all: the stream completes, nothing lost
            return done.future();
          })
          .eventually(socket::close);
    }).onComplete(ctx.succeeding(v -> ctx.verify(() -> {
      assertTrue(total[0] > (long) tokens * 20_000, "every byte arrived: " + total[0]);
      ctx.completeNow();
    })));
  }
}
