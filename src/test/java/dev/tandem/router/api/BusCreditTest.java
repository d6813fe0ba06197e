package dev.tandem.router.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.LateMessages;
import dev.tandem.router.testing.FaultInjectingFakeEngine;
import dev.tandem.router.testing.RouterHarness;
import dev.tandem.testing.Failures;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Bus streams with credit: the router sends only what the caller granted and pauses the engine's
 * stream meanwhile; a caller that goes away (its address has no handler any more) cancels the
 * engine request, with or without credit. A fake engine, for its huge and slow streams and its
 * count of requests aborted by the client; real engines over a real cluster: ClusterBusIT.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, timeUnit = TimeUnit.SECONDS)
class BusCreditTest {
  private static final String STREAM = "test.credit.stream";

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
    h.closeWhenIdle(engine, 5_000).onComplete(ctx.succeedingThenComplete());
  }

  private static JsonObject streamRequest(int maxTokens) {
    return new JsonObject().put("prompt", new JsonArray().add(1).add(2)).put("max_tokens", maxTokens)
        .put("temperature", 0).put("stream", true);
  }

  private static DeliveryOptions streamTo(String address, Integer credit) {
    DeliveryOptions options = new DeliveryOptions()
        .addHeader(BusCompletionsEndpoint.STREAM_ADDRESS_HEADER, address);
    return credit == null ? options
        : options.addHeader(BusCompletionsEndpoint.CREDIT_HEADER, credit.toString());
  }

  @Test
  void aSlowConsumerGetsNoMoreThanItsCreditAndTheEngineIsPausedMeanwhile(VertxTestContext ctx) {
    engine.padding(20_000).tokenDelayMs(1); // 20 KB a chunk: the engine feels a paused reader soon
    int tokens = 400;
    AtomicInteger chunks = new AtomicInteger();
    AtomicInteger granted = new AtomicInteger(2);
    AtomicInteger maxOverCredit = new AtomicInteger(Integer.MIN_VALUE);
    Promise<Void> firstTwo = Promise.promise();
    Promise<JsonObject> done = Promise.promise();
    boolean[] granting = {false};
    MessageConsumer<JsonObject> consumer = callerConsumer(m -> {
      JsonObject body = m.body();
      if (body.containsKey("probe")) {
        return;
      }
      if (body.containsKey("done") || body.containsKey("error")) {
        done.tryComplete(body);
        return;
      }
      int n = chunks.incrementAndGet();
      maxOverCredit.accumulateAndGet(n - granted.get(), Math::max);
      if (n == 2) {
        firstTwo.tryComplete();
      }
      if (granting[0]) {
        granted.incrementAndGet();
        vertx.eventBus().send(STREAM + BusCompletionsEndpoint.CREDIT_SUFFIX,
            new JsonObject().put("credit", 1));
      }
    });
    consumer.completion()
        .compose(v -> vertx.eventBus().request(Addresses.DEFAULT.completions(),
            streamRequest(tokens), streamTo(STREAM, 2)))
        .compose(ack -> firstTwo.future())
        .compose(v -> h.untilTrue("the engine paused by the router", 20_000, engine::sawBackPressure))
        .compose(v -> vertx.timer(300)) // nothing beyond the credit may arrive meanwhile
        .compose(v -> {
          ctx.verify(() -> assertEquals(2, chunks.get(), "chunks before more credit"));
          granting[0] = true; // from now on one credit per chunk consumed
          granted.addAndGet(3);
          vertx.eventBus().send(STREAM + BusCompletionsEndpoint.CREDIT_SUFFIX,
              new JsonObject().put("credit", 3));
          return done.future();
        })
        .onComplete(ctx.succeeding(last -> ctx.verify(() -> {
          assertEquals(new JsonObject().put("done", true), last);
          assertTrue(chunks.get() >= tokens, "every token came: " + chunks.get());
          assertTrue(maxOverCredit.get() <= 0, "chunks beyond the credit: " + maxOverCredit.get());
          consumer.unregister();
          ctx.completeNow();
        })));
  }

  /** Small chunks: the engine may well finish into the socket buffers; the router must not read on. */
  @Test
  void outOfCreditTheRouterStopsReadingTheEnginesStream(VertxTestContext ctx) {
    engine.chunkTokenIds(true); // as builtin engines do
    AtomicInteger chunks = new AtomicInteger();
    MessageConsumer<JsonObject> consumer = callerConsumer(m -> {
      if (!m.body().containsKey("probe")) {
        chunks.incrementAndGet();
      }
    });
    consumer.completion()
        .compose(v -> vertx.eventBus().request(Addresses.DEFAULT.completions(), streamRequest(2000),
            streamTo(STREAM, 2)))
        .compose(ack -> vertx.timer(2_000))
        .compose(v -> h.inFlight(1))
        .onComplete(ctx.succeeding(inFlight -> ctx.verify(() -> {
          assertEquals(2, chunks.get(), "within the credit");
          assertEquals(1, inFlight, "the request still runs, held by the caller's credit");
          consumer.unregister(); // the caller goes: the request is cancelled (see @AfterEach)
          ctx.completeNow();
        })));
  }

  @Test
  void aCallerGoneWhileOutOfCreditCancelsTheEngineRequest(VertxTestContext ctx) {
    callerLeavesAfterTheFirstChunk(ctx, 1);
  }

  @Test
  void aCallerGoneWithoutCreditControlCancelsTheEngineRequestToo(VertxTestContext ctx) {
    callerLeavesAfterTheFirstChunk(ctx, null);
  }

  private void callerLeavesAfterTheFirstChunk(VertxTestContext ctx, Integer credit) {
    engine.tokenDelayMs(30);
    Promise<Void> first = Promise.promise();
    MessageConsumer<JsonObject> consumer = callerConsumer(m -> {
      if (!m.body().containsKey("probe")) {
        first.tryComplete();
      }
    });
    consumer.completion()
        .compose(v -> vertx.eventBus().request(Addresses.DEFAULT.completions(), streamRequest(500),
            streamTo(STREAM, credit)))
        .compose(ack -> first.future())
        .compose(v -> consumer.unregister()) // the caller goes: no handler at its address
        .compose(v -> h.untilTrue("the engine request aborted", 5_000,
            () -> engine.running() == 0 && engine.abortedByClient() == 1))
        .compose(v -> h.until("the router's lease released", 2_000,
            () -> h.inFlight(1).map(n -> n == 0)))
        .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aCreditThatIsNotAPositiveNumberIsRefused(VertxTestContext ctx) {
    Failures.of(vertx.eventBus().request(Addresses.DEFAULT.completions(), streamRequest(3),
            streamTo(STREAM, 0)))
        .onComplete(ctx.succeeding(err -> ctx.verify(() -> {
          assertEquals(400, ((ReplyException) err).failureCode());
          assertEquals("invalid_stream_credit", new JsonObject(err.getMessage())
              .getJsonObject("error").getString("code"));
          assertEquals(0, engine.completionRequests());
          ctx.completeNow();
        })));
  }

  /**
   * The caller's stream consumer, as the bus client makes it (client.CompletionStream): a chunk
   * already on its way when the caller unregisters is dropped without Vert.x's warning.
   */
  private MessageConsumer<JsonObject> callerConsumer(Handler<Message<JsonObject>> handler) {
    return LateMessages.dropQuietly(vertx.eventBus().consumer(STREAM, handler));
  }
}
