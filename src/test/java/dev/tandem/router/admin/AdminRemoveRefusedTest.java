package dev.tandem.router.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.config.RouterMode;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.api.ModelInfo;
import dev.tandem.router.testing.RouterHarness;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code DELETE /admin/engines/{id}} drains the engine first; when the supervisor refuses to
 * remove it (an engine a tandem node runs: 409), the engine goes back into rotation and the
 * operator gets the supervisor's reason.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AdminRemoveRefusedTest {

  @Test
  void aRefusedRemovalPutsTheEngineBackInRotation() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      // stands in for the supervisor: engine 1 runs on a node
      vertx.eventBus().<JsonObject>consumer(Addresses.DEFAULT.fleetRemove(),
          msg -> msg.fail(409, "engine 1 (both, gpu-2:8081) runs on a tandem node"));
      RouterHarness router = await(RouterHarness.start(vertx,
          new RouterOptions().set(RouterOptions.ROUTER_MODE, RouterMode.ROUND_ROBIN),
          new ModelInfo("fake", 100_000, 1000), null));
      await(router.announce(RouterHarness.status(1, "http://127.0.0.1:9", EngineRole.BOTH,
          EngineState.READY, 0)));
      WebClient http = WebClient.create(vertx);
      var reply = await(http.delete(router.port(), "127.0.0.1", "/admin/engines/1").send());
      assertEquals(409, reply.statusCode(), reply.bodyAsString());
      assertTrue(reply.bodyAsString().contains("runs on a tandem node"), reply.bodyAsString());
      JsonObject engine = await(router.adminEngines()).getJsonArray("engines").getJsonObject(0);
      assertFalse(engine.getBoolean("drained"), "back in rotation: " + engine);
      await(router.close());
    } finally {
      await(vertx.close());
    }
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }
}
