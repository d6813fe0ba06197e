package dev.tandem.router.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.bus.LoadReport;
import dev.tandem.router.policy.LoadGauges;
import dev.tandem.testing.Eventually;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.time.Duration;
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
    vertx.eventBus().consumer(Addresses.DEFAULT.fleetQuery(), msg -> msg.reply(new JsonObject()
        .put("engines", new JsonArray().add(status(0, EngineState.READY).toJson())
            .add(status(1, EngineState.STARTING).toJson()))));
    EngineRegistry registry = new EngineRegistry(System::currentTimeMillis);
    FleetSubscription sub = new FleetSubscription(vertx, registry, Addresses.DEFAULT);
    sub.start(2000)
        .compose(v -> {
          vertx.eventBus().publish(Addresses.DEFAULT.engineStatus(), status(1, EngineState.READY).toJson());
          vertx.eventBus().publish(Addresses.DEFAULT.engineStatus(), new JsonObject().put("bogus", 1));
          return Eventually.untilTrue(vertx, Duration.ofSeconds(5), "both engines ready",
              () -> registry.ready().size() == 2);
        })
        .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  @Timeout(value = 10, timeUnit = TimeUnit.SECONDS)
  void loadReportsOnTheBusReachTheRegistry(Vertx vertx, VertxTestContext ctx) {
    EngineRegistry registry = new EngineRegistry(System::currentTimeMillis);
    FleetSubscription sub = new FleetSubscription(vertx, registry, Addresses.DEFAULT);
    sub.start(100)
        .compose(v -> {
          vertx.eventBus().publish(Addresses.DEFAULT.engineStatus(), status(0, EngineState.READY).toJson());
          vertx.eventBus().publish(Addresses.DEFAULT.engineLoad(), new JsonObject().put("nonsense", true));
          // JSON as text, as another process on a clustered bus might send it
          vertx.eventBus().publish(Addresses.DEFAULT.engineLoad(), new LoadReport(0, 0, 3, 17, 5L, 64L, 60_000,
              System.currentTimeMillis(), new JsonObject()).toJson().encode());
          return Eventually.untilTrue(vertx, Duration.ofSeconds(5), "engine 0's load in the registry",
              () -> registry.gauges(0) != null);
        })
        .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
          assertEquals(new LoadGauges(3, 17, 5, 64), registry.gauges(0));
          assertEquals(20, registry.snapshot().get(0).score());
          ctx.completeNow();
        })));
  }

  /** Two fleets on one bus: each router's registry holds its own fleet's engines only. */
  @Test
  @Timeout(value = 10, timeUnit = TimeUnit.SECONDS)
  void aRouterSeesOnlyTheEnginesOfItsOwnFleet(Vertx vertx, VertxTestContext ctx) {
    Addresses blue = Addresses.of("blue");
    EngineRegistry blueRegistry = new EngineRegistry(System::currentTimeMillis);
    EngineRegistry defaultRegistry = new EngineRegistry(System::currentTimeMillis);
    new FleetSubscription(vertx, blueRegistry, blue).start(100)
        .compose(v -> new FleetSubscription(vertx, defaultRegistry, Addresses.DEFAULT).start(100))
        .compose(v -> {
          vertx.eventBus().publish(blue.engineStatus(), status(7, EngineState.READY).toJson());
          vertx.eventBus().publish(Addresses.DEFAULT.engineStatus(), status(3, EngineState.READY)
              .toJson());
          return Eventually.untilTrue(vertx, Duration.ofSeconds(5), "both registries fed",
              () -> blueRegistry.ready().size() == 1 && defaultRegistry.ready().size() == 1);
        })
        .compose(v -> vertx.timer(200)) // a stray delivery to the wrong registry would show by now
        .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
          assertEquals(7, blueRegistry.snapshot().get(0).id());
          assertEquals(3, defaultRegistry.snapshot().get(0).id());
          assertEquals(1, blueRegistry.statuses().size());
          assertEquals(1, defaultRegistry.statuses().size());
          ctx.completeNow();
        })));
  }
}
