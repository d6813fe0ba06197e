package dev.tandem.router.api;

import static dev.tandem.config.RouterOptions.ADMIN_PORT;
import static dev.tandem.config.RouterOptions.ROUTER_HOST;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.tandem.config.RouterOptions;
import dev.tandem.router.RouterVerticle;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** With --admin-port the admin routes leave the public port, and probes answer on both. */
@ExtendWith(VertxExtension.class)
@Timeout(value = 20, timeUnit = TimeUnit.SECONDS)
class AdminPortTest {

  @Test
  void adminRoutesMoveToTheirOwnPort(Vertx vertx, VertxTestContext ctx) {
    RouterVerticle router = new RouterVerticle(new RouterOptions().set(ROUTER_HOST, "127.0.0.1")
        .set(ROUTER_PORT, 0).set(ADMIN_PORT, 0), new ModelInfo("m", 0, 0), null);
    WebClient web = WebClient.create(vertx);
    vertx.deployVerticle(router).compose(id -> {
      int pub = router.actualPort();
      int adm = router.actualAdminPort();
      ctx.verify(() -> assertNotEquals(pub, adm));
      return Future.all(List.of("/admin/engines", "/metrics", "/dashboard/", "/health", "/v1/models")
          .stream().flatMap(path -> java.util.stream.Stream.of(
              web.get(pub, "127.0.0.1", path).send().map(r -> path + " public " + r.statusCode()),
              web.get(adm, "127.0.0.1", path).send().map(r -> path + " admin " + r.statusCode())))
          .toList());
    }).onComplete(ctx.succeeding(all -> ctx.verify(() -> {
      assertEquals(List.of("/admin/engines public 404", "/admin/engines admin 200",
          "/metrics public 404", "/metrics admin 200", "/dashboard/ public 404",
          "/dashboard/ admin 200", "/health public 200", "/health admin 200",
          "/v1/models public 200", "/v1/models admin 404"), all.list());
      ctx.completeNow();
    })));
  }
}
