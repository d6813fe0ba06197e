package dev.tandem.router.api;

import static dev.tandem.config.RouterOptions.MAX_BODY_BYTES;
import static dev.tandem.config.RouterOptions.RETRY_AFTER_SECONDS;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;

import dev.tandem.api.ApiError;
import dev.tandem.api.ErrorResponses;
import dev.tandem.bus.Addresses;
import dev.tandem.bus.LoadReport;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.policy.LoadGauges;
import dev.tandem.router.registry.EngineRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * The router's HTTP routes: {@code POST /v1/completions}, {@code POST /v1/chat/completions},
 * {@code GET /v1/models},
 * {@code GET /health} (the router is up), {@code GET /ready} (a request could be served now),
 * {@code GET /metrics} (Prometheus text), {@code GET /admin/engines} (JSON view of the
 * registry: state, in-flight count, gauges and last load report per engine) and {@code GET /fleet} (the
 * supervisor's view, as the stand-in router served it). Unknown paths, wrong methods and oversized bodies get OpenAI error bodies too.
 */
public final class RouterApi {

  private RouterApi() {}

  public static Router create(Vertx vertx, RouterOptions options, ModelInfo model,
      CompletionService service, ChatService chat, EngineRegistry registry, RouterMetrics metrics) {
    Router router = Router.router(vertx);
    router.post("/v1/completions")
        .handler(BodyHandler.create(false).setBodyLimit(options.get(MAX_BODY_BYTES)))
        .handler(new CompletionsHandler(service::prepareRequest, metrics));
    router.post("/v1/chat/completions")
        .handler(BodyHandler.create(false).setBodyLimit(options.get(MAX_BODY_BYTES)))
        .handler(new CompletionsHandler(chat::prepare, metrics));
    router.get("/v1/models").handler(ctx -> json(ctx, 200, new JsonObject().put("object", "list")
        .put("data", new JsonArray().add(new JsonObject().put("id", model.id())
            .put("object", "model").put("created", System.currentTimeMillis() / 1000)
            .put("owned_by", "tandem")))));
    router.get("/health").handler(ctx -> json(ctx, 200, new JsonObject().put("status", "up")));
    router.get("/ready").handler(ctx -> {
      boolean ready = service.dispatcher().canServe();
      JsonObject body = new JsonObject().put("ready", ready)
          .put("mode", options.get(ROUTER_MODE).wireName())
          .put("engines_ready", registry.ready().size()).put("engines_known", registry.statuses().size());
      if (!ready) {
        ctx.response().putHeader(HttpHeaders.RETRY_AFTER,
            Integer.toString(options.get(RETRY_AFTER_SECONDS)));
      }
      json(ctx, ready ? 200 : 503, body);
    });
    router.get("/metrics").handler(MetricsPage.handler(registry, metrics));
    router.get("/admin/engines").handler(ctx -> json(ctx, 200, engines(registry, metrics)));
    // The supervisor's own view of the fleet (every engine's latest status, pids included).
    router.get("/fleet").handler(ctx -> vertx.eventBus().<Object>request(Addresses.FLEET_QUERY,
            new JsonObject())
        .onSuccess(reply -> json(ctx, 200, reply.body() instanceof JsonObject o ? o
            : new JsonObject().put("engines", reply.body())))
        .onFailure(err -> error(ctx, 503, "fleet_unavailable", "fleet view unavailable: "
            + err.getMessage())));
    router.errorHandler(404, ctx -> error(ctx, 404, "not_found",
        "no route " + ctx.request().method() + " " + ctx.request().path()));
    router.errorHandler(405, ctx -> error(ctx, 405, "method_not_allowed",
        ctx.request().method() + " is not allowed on " + ctx.request().path()));
    router.errorHandler(413, ctx -> error(ctx, 413, "request_too_large",
        "the request body is larger than " + options.get(MAX_BODY_BYTES) + " bytes"));
    router.errorHandler(500, ctx -> ErrorResponses.send(ctx.response(),
        ctx.failure() == null ? new IllegalStateException("internal error") : ctx.failure()));
    return router;
  }

  private static JsonObject engines(EngineRegistry registry, RouterMetrics metrics) {
    JsonArray list = new JsonArray();
    registry.statuses().forEach(s -> {
      JsonObject e = s.toJson().put("inFlight", registry.inFlight(s.id()));
      LoadGauges g = registry.gauges(s.id());
      if (g != null) {
        e.put("gauges", new JsonObject().put("running", g.running()).put("waiting", g.waiting())
            .put("kvFreePages", g.freeKvPages()).put("kvTotalPages", g.totalKvPages()));
      }
      LoadReport load = registry.load(s.id());
      if (load != null) {
        e.put("load", load.toJson()); // as the engine's EngineVerticle last published it
      }
      list.add(e);
    });
    return new JsonObject().put("engines", list).put("inFlightTotal", registry.totalInFlight())
        .put("reservationsOpen", metrics.reservationsOpen());
  }

  private static void error(RoutingContext ctx, int status, String code, String message) {
    if (!ctx.response().ended()) {
      json(ctx, status, ApiError.body(message, ApiError.INVALID_REQUEST, null, code));
    }
  }

  private static void json(RoutingContext ctx, int status, JsonObject body) {
    ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
        .end(body.encode());
  }
}
