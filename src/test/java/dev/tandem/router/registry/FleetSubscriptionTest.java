package dev.tandem.router.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
class FleetSubscriptionTest {

  private static EngineStatus status(int id, EngineState state) {
    return new EngineStatus(id, "http://127.0.0.1:" + (9000 + id), EngineRole.DECODE, id, 1, state,
        0, null);
  }

  @Test
  void snapshotShapes() {
    JsonArray array = new JsonArray().add(status(0, EngineState.READY).toJson());
    assertEquals(1, FleetSubscription.parseSnapshot(array).size());
    assertEquals(0, FleetSubscription.parseSnapshot(new JsonObject().put("engines", new JsonArray()))
        .size());
  }

  @Test
  @Timeout(value = 10, timeUnit = TimeUnit.SECONDS)
  void registryFollowsEventsAndTheInitialSnapshot(Vertx vertx, VertxTestContext ctx) {
    // a stand-in for the supervisor's answer to the fleet query
    vertx.eventBus().consumer(Addresses.FLEET_QUERY, msg -> msg.reply(new JsonObject()
        .put("engines", new JsonArray().add(status(0, EngineState.READY).toJson())
            .add(status(1, EngineState.STARTING).toJson()))));
    EngineRegistry registry = new EngineRegistry(System::currentTimeMillis, 3000);
    FleetSubscription sub = new FleetSubscription(vertx, registry);
    sub.start(2000).onComplete(ctx.succeeding(v -> {
      vertx.eventBus().publish(Addresses.ENGINE_STATUS, status(1, EngineState.READY).toJson());
      vertx.eventBus().publish(Addresses.ENGINE_STATUS, new JsonObject().put("bogus", 1));
      vertx.setPeriodic(20, id -> {
        if (registry.ready().size() == 2) {
          vertx.cancelTimer(id);
          ctx.completeNow();
        }
      });
    }));
  }
}
