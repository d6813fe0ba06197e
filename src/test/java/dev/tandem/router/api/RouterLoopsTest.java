package dev.tandem.router.api;

import static dev.tandem.config.RouterOptions.MAX_CONNECTIONS_PER_ENGINE;
import static dev.tandem.config.RouterOptions.ROUTER_LOOPS;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.tandem.bench.NullEngineServer;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.config.RouterMode;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.testing.RouterHarness;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The router's HTTP API on several event loops ({@code --router-loops}): each loop runs its
 * connections' requests with engine connections of its own, and routers in one JVM asked for
 * "any free port" each get their own. The upstream is the bench's real zero-cost engine server.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RouterLoopsTest {

  private static final int LOOPS = 3;
  private static final int REQUESTS = 2 * LOOPS;

  /**
   * With one engine connection allowed per loop and a slow first token, the engine sees as many
   * requests at once as the router has loops (one loop would send them one by one), never more,
   * and every answer comes back whole.
   */
  @Test
  void eachLoopRunsItsRequestsOnEngineConnectionsOfItsOwn(Vertx vertx, VertxTestContext ctx) {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    NullEngineServer engine = new NullEngineServer("127.0.0.1", 0, 400, 0, running);
    RouterOptions options = new RouterOptions().set(ROUTER_MODE, RouterMode.ROUND_ROBIN)
        .set(ROUTER_LOOPS, LOOPS).set(MAX_CONNECTIONS_PER_ENGINE, 1);
    vertx.deployVerticle(engine)
        .compose(id -> RouterHarness.start(vertx, options, new ModelInfo("null", 100_000, 0), null))
        .compose(h -> h.announce(RouterHarness.status(1, "http://127.0.0.1:" + engine.actualPort(),
            EngineRole.BOTH, EngineState.READY, 0)).map(h))
        .compose(h -> {
          long sampler = vertx.setPeriodic(2,
              t -> mostAtOnce.accumulateAndGet(running.get(), Math::max));
          List<Future<RouterHarness.Answer>> answers = new ArrayList<>();
          for (int i = 0; i < REQUESTS; i++) {
            answers.add(h.post("/v1/completions", new JsonObject().put("prompt", List.of(1, 2, 3))
                .put("max_tokens", 4).put("stream", true)));
          }
          return Future.all(answers).onComplete(x -> vertx.cancelTimer(sampler))
              .map(all -> {
                ctx.verify(() -> {
                  for (Future<RouterHarness.Answer> a : answers) {
                    assertEquals(200, a.result().status(), a.result().body().toString());
                    assertEquals("xxxx", a.result().streamedText(0));
                  }
                  assertEquals(LOOPS, mostAtOnce.get(), "requests at the engine at once");
                });
                return h;
              });
        })
        .compose(h -> h.idle().compose(v -> h.close()))
        .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void routersOnAnyFreePortGetAPortEach(Vertx vertx, VertxTestContext ctx) {
    RouterOptions options = new RouterOptions().set(ROUTER_MODE, RouterMode.ROUND_ROBIN)
        .set(ROUTER_LOOPS, 2);
    RouterHarness.start(vertx, options, new ModelInfo("a", 100_000, 0), null)
        .compose(a -> RouterHarness.start(vertx, new RouterOptions()
            .set(ROUTER_MODE, RouterMode.ROUND_ROBIN).set(ROUTER_LOOPS, 2),
            new ModelInfo("b", 100_000, 0), null)
            .compose(b -> {
              ctx.verify(() -> assertNotEquals(a.port(), b.port()));
              // every connection to a port reaches that port's router, whichever loop takes it
              List<Future<RouterHarness.Answer>> asks = new ArrayList<>();
              for (int i = 0; i < 8; i++) {
                asks.add((i % 2 == 0 ? a : b).get("/v1/models"));
              }
              return Future.all(asks).map(all -> {
                ctx.verify(() -> {
                  for (int i = 0; i < asks.size(); i++) {
                    JsonObject models = asks.get(i).result().json();
                    assertEquals(i % 2 == 0 ? "a" : "b",
                        models.getJsonArray("data").getJsonObject(0).getString("id"));
                  }
                });
                return null;
              }).compose(v -> a.close()).compose(v -> b.close());
            }))
        .onComplete(ctx.succeedingThenComplete());
  }
}
