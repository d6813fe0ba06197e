package dev.tandem.client;

import static dev.tandem.router.testing.RouterHarness.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.Addresses;
import dev.tandem.router.testing.FaultInjectingFakeEngine;
import dev.tandem.router.testing.RouterHarness;
import dev.tandem.testing.Failures;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The typed client against a router on the same (local) bus; a fake engine for its predictable
 * text. Across JVMs on a cluster: ClusterBusIT.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, timeUnit = TimeUnit.SECONDS)
class TandemBusClientTest {
  FaultInjectingFakeEngine engine;
  RouterHarness h;
  Vertx vertx;
  TandemBusClient client;

  @BeforeEach
  void setUp(Vertx vertx, VertxTestContext ctx) {
    this.vertx = vertx;
    client = TandemBusClient.create(vertx);
    engine = new FaultInjectingFakeEngine(vertx);
    RouterHarness.roundRobinBefore(vertx, engine).onSuccess(router -> h = router)
        .<Void>mapEmpty().onComplete(ctx.succeedingThenComplete());
  }

  @AfterEach
  void idle(VertxTestContext ctx) {
    h.closeWhenIdle(engine, 5_000).onComplete(ctx.succeedingThenComplete());
  }

  private static JsonObject request(int maxTokens) {
    return new JsonObject().put("prompt", new JsonArray().add(1).add(2)).put("max_tokens", maxTokens)
        .put("temperature", 0);
  }

  @Test
  void aWholeAnswerIsTheRoutersReply(VertxTestContext ctx) {
    client.completion(request(5))
        .compose(typed -> vertx.eventBus().<JsonObject>request(Addresses.DEFAULT.completions(),
            request(5)).map(raw -> List.of(typed, raw.body())))
        .onComplete(ctx.succeeding(both -> ctx.verify(() -> {
          assertEquals(both.get(1).getJsonArray("choices"), both.get(0).getJsonArray("choices"));
          assertEquals(FaultInjectingFakeEngine.expectedGreedyText(new int[] {1, 2}, 5),
              both.get(0).getJsonArray("choices").getJsonObject(0).getString("text"));
          ctx.completeNow();
        })));
  }

  @Test
  void failuresCarryTheStatusAndTheOpenAiError(VertxTestContext ctx) {
    Failures.of(client.completion(request(3).put("top_p", 7)))
        .compose(bad -> {
          ctx.verify(() -> {
            TandemBusException e = assertInstanceOf(TandemBusException.class, bad);
            assertEquals(400, e.status());
            assertEquals("top_p", e.body().getJsonObject("error").getString("param"));
          });
          return Failures.of(client.fleet("nobody").completion(request(3)));
        })
        .compose(none -> {
          ctx.verify(() -> assertEquals(503, ((TandemBusException) none).status()));
          return Failures.of(client.streamCompletion(request(3).put("n", 0)));
        })
        .onComplete(ctx.succeeding(badStream -> ctx.verify(() -> {
          assertEquals(400, ((TandemBusException) badStream).status());
          ctx.completeNow();
        })));
  }

  /** Paused, the stream holds its window and grants nothing; each fetch lets one more come. */
  @Test
  void creditFollowsDemand(VertxTestContext ctx) {
    List<String> texts = new ArrayList<>();
    Promise<Void> ended = Promise.promise();
    client.window(3).streamCompletion(request(12)).compose(stream -> {
      stream.pause().handler(chunk -> texts.add(chunk.getJsonArray("choices").getJsonObject(0)
          .getString("text"))).endHandler(ended::complete).exceptionHandler(ended::fail);
      return h.untilTrue("the window filled", 5_000, () -> stream.buffered() == 3)
          .compose(v -> vertx.timer(300))
          .compose(v -> {
            ctx.verify(() -> {
              assertEquals(3, stream.chunksReceived(), "nothing beyond the window while paused");
              assertEquals(3, stream.creditGranted());
              assertTrue(texts.isEmpty());
            });
            stream.fetch(1);
            return h.untilTrue("one chunk handed over", 5_000, () -> texts.size() == 1);
          })
          .compose(v -> vertx.timer(300))
          .compose(v -> {
            ctx.verify(() -> assertTrue(stream.chunksReceived() <= 4, "one more at most: "
                + stream.chunksReceived()));
            stream.resume();
            return ended.future();
          });
    }).onComplete(ctx.succeeding(v -> ctx.verify(() -> {
      assertEquals(FaultInjectingFakeEngine.expectedGreedyText(new int[] {1, 2}, 12),
          String.join("", texts));
      ctx.completeNow();
    })));
  }

  @Test
  void cancelStopsTheEnginesWork(VertxTestContext ctx) {
    engine.tokenDelayMs(30);
    Promise<Void> first = Promise.promise();
    client.streamCompletion(request(500)).compose(stream -> {
      stream.handler(chunk -> first.tryComplete());
      return first.future().compose(v -> stream.cancel());
    }).compose(v -> h.untilTrue("the engine request aborted", 5_000,
            () -> engine.running() == 0 && engine.abortedByClient() == 1))
        .onComplete(ctx.succeedingThenComplete());
  }
}
