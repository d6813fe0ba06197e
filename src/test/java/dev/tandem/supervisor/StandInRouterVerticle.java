package dev.tandem.supervisor;

import static dev.tandem.config.RouterConfig.MODEL;
import static dev.tandem.config.RouterOptions.ROUTER_HOST;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;

import dev.tandem.config.RouterConfig;
import dev.tandem.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A router for supervisor tests that need no real one: {@code GET /health}, {@code GET /v1/models} and {@code GET /fleet}
 * (every engine's latest status, from the supervisor over the event bus). Everything else is a 404
 * in the OpenAI error shape.
 */
public final class StandInRouterVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(StandInRouterVerticle.class);
  private final RouterConfig config;
  private HttpServer server;

  public StandInRouterVerticle(RouterConfig config) {
    this.config = config;
  }

  public static RouterVerticleFactory factory() {
    return (config, tokenizer) -> new StandInRouterVerticle(config);
  }

  @Override
  public Future<?> start() {
    Router router = Router.router(vertx);
    router.get("/health").handler(ctx -> json(ctx, 200, new JsonObject().put("status", "ok")));
    router.get("/v1/models").handler(ctx -> json(ctx, 200, new JsonObject().put("object", "list")
        .put("data", new JsonArray().add(new JsonObject().put("id", config.get(MODEL))
            .put("object", "model").put("owned_by", "tandem")))));
    router.get("/fleet").handler(this::fleet);
    router.route().handler(ctx -> json(ctx, 404, error("no route for " + ctx.request().method()
        + " " + ctx.request().path() + " (the stand-in router serves /health, /v1/models and"
        + " /fleet only)", "not_found_error")));
    return vertx.createHttpServer().requestHandler(router)
        .listen(config.get(ROUTER_PORT), config.get(ROUTER_HOST))
        .onSuccess(s -> {
          server = s;
          LOG.info("stand-in router listening on http://{}:{}", config.get(ROUTER_HOST),
              s.actualPort());
        });
  }

  @Override
  public Future<?> stop() {
    return server == null ? Future.succeededFuture() : server.close();
  }

  private void fleet(RoutingContext ctx) {
    vertx.eventBus().<JsonObject>request(Addresses.DEFAULT.fleetQuery(), new JsonObject())
        .onSuccess(reply -> json(ctx, 200, reply.body()))
        .onFailure(err -> json(ctx, 503, error("fleet view unavailable: " + err.getMessage(),
            "service_unavailable")));
  }

  private static JsonObject error(String message, String type) {
    return new JsonObject().put("error", new JsonObject().put("message", message).put("type", type)
        .putNull("param").putNull("code"));
  }

  private static void json(RoutingContext ctx, int status, JsonObject body) {
    ctx.response().setStatusCode(status).putHeader("content-type", "application/json")
        .end(body.encode());
  }
}
