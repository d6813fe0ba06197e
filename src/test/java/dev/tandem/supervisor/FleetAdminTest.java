package dev.tandem.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.config.EndpointConfig;
import dev.tandem.config.EngineKind;
import dev.tandem.config.RouterConfig;
import dev.tandem.config.RouterMode;
import dev.tandem.config.RouterOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the supervisor answers on tandem.fleet.add / remove before any engine starts: a disagg
 * fleet cannot grow its KV world (409, saying a re-form is needed), bad bodies are 400s, unknown
 * engines 404. Adding and removing real engines is OperationsIT's.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class FleetAdminTest {

  private static FleetAdmin admin(Vertx vertx, RouterConfig config) {
    FleetAdmin admin = new FleetAdmin(vertx, config, null, null, new FleetView(), () -> null, new ArrayList<>());
    admin.started(new EndpointConfig(0, "127.0.0.1", 8080, 1, 0, EngineRole.BOTH), "d0");
    admin.start();
    return admin;
  }

  private static Future<Integer> failureCode(Vertx vertx, String address, JsonObject body,
      List<String> messages) {
    return vertx.eventBus().request(address, body).transform(ar -> {
      ReplyException e = (ReplyException) ar.cause();
      messages.add(e.getMessage());
      return Future.succeededFuture(e.failureCode());
    });
  }

  @Test
  void aDisaggWorldCannotAdmitAMemberAndSaysSo(Vertx vertx, VertxTestContext ctx) {
    FleetAdmin mlc = admin(vertx, new RouterConfig().set(RouterOptions.ROUTER_MODE, RouterMode.DISAGG)
        .set(RouterConfig.ENGINE, EngineKind.MLC));
    List<String> messages = new ArrayList<>();
    failureCode(vertx, Addresses.DEFAULT.fleetAdd(), new JsonObject().put("port", 8090), messages)
        .onComplete(ctx.succeeding(code -> ctx.verify(() -> {
          assertEquals(409, code);
          assertTrue(messages.get(0).contains("NVSHMEM world") && messages.get(0).contains("re-formed"),
              messages.get(0));
          mlc.stop();
          ctx.completeNow();
        })));
  }

  @Test
  void badBodiesAndUnknownEnginesAreRefused(Vertx vertx, VertxTestContext ctx) {
    admin(vertx, new RouterConfig().set(RouterOptions.ROUTER_MODE, RouterMode.ROUND_ROBIN));
    List<String> messages = new ArrayList<>();
    Future.all(List.of(
            failureCode(vertx, Addresses.DEFAULT.fleetAdd(), new JsonObject(), messages),
            failureCode(vertx, Addresses.DEFAULT.fleetAdd(), new JsonObject().put("port", 8080), messages),
            failureCode(vertx, Addresses.DEFAULT.fleetAdd(), new JsonObject().put("port", 8091)
                .put("role", "teacher"), messages),
            failureCode(vertx, Addresses.DEFAULT.fleetRemove(), new JsonObject().put("id", 5), messages)))
        .onComplete(ctx.succeeding(all -> ctx.verify(() -> {
          assertEquals(List.of(400, 400, 400, 404), all.list(), messages.toString());
          assertTrue(messages.get(1).contains("engine 0"), messages.get(1));
          ctx.completeNow();
        })));
  }
}
