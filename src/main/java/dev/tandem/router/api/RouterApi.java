package dev.tandem.router.api;

import static dev.tandem.config.RouterOptions.MAX_BODY_BYTES;
import static dev.tandem.config.RouterOptions.RETRY_AFTER_SECONDS;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;

import dev.tandem.api.ApiError;
import dev.tandem.api.ErrorResponses;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.access.AccessControl;
import dev.tandem.router.admin.AdminRoutes;
import dev.tandem.router.dashboard.DashboardFeed;
import dev.tandem.router.dashboard.DashboardRoutes;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.router.registry.EngineRegistry;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * The router's HTTP routes: {@code POST /v1/completions}, {@code POST /v1/chat/completions},
 * {@code GET /v1/models} (behind the API keys, when there are any), {@code GET /health} (the
 * router is up) and {@code GET /ready} (a request could be served now), always open for probes,
 * and behind the admin keys: {@code GET /metrics} (Prometheus text), the admin API
 * ({@code /admin/engines...}, {@link AdminRoutes}), {@code GET /fleet} (the supervisor's view) and
 * {@code /dashboard} ({@link DashboardRoutes}). Unknown paths, wrong methods and oversized bodies
 * get OpenAI error bodies too.
 */
public final class RouterApi {

  /** Which routes one HTTP server serves: all, or (with --admin-port) the public or admin half. */
  public enum Routes {
    ALL, PUBLIC, ADMIN;

    boolean publicRoutes() {
      return this != ADMIN;
    }

    boolean adminRoutes() {
      return this != PUBLIC;
    }
  }

  private RouterApi() {}

  /**
   * The server's request handler. {@code POST /v1/completions} and {@code POST
   * /v1/chat/completions} go straight to their {@link CompletionsHandler} (the hot path: no
   * routing context, route matching or body handler per request), everything else through
   * Vert.x Web. {@code /health} and {@code /ready} are on every server, for probes.
   */
  public static Handler<HttpServerRequest> create(Vertx vertx, RouterOptions options,
      ModelInfo model, CompletionService service, ChatService chat, EngineRegistry registry,
      RouterMetrics metrics, RequestRunner runner, AdminRoutes admin, DashboardFeed feed,
      Routes routes) {
    Router router = Router.router(vertx);
    AccessControl access = runner.access();
    int maxBody = options.get(MAX_BODY_BYTES);
    CompletionsHandler completions = new CompletionsHandler("completions", service::prepareRequest,
        metrics, runner, maxBody);
    CompletionsHandler chatCompletions = new CompletionsHandler("chat", chat::prepare, metrics,
        runner, maxBody);
    if (routes.publicRoutes()) {
      mountPublic(router, options, model, access, completions, chatCompletions);
      TokenizeRoutes.mount(router, access.api(), maxBody, model, service, chat);
    }
    mountProbes(router, options, service, registry, runner);
    if (routes.adminRoutes()) {
      for (String path : new String[] {"/admin/*", "/metrics", "/fleet", "/dashboard", "/dashboard/*"}) {
        router.route(path).handler(access.admin());
      }
      router.get("/metrics").handler(MetricsPage.handler(registry, metrics));
      admin.mount(router);
      DashboardRoutes.mount(router, admin::engines, feed, metrics.ops().errors(),
          new JsonObject().put("mode", options.get(ROUTER_MODE).wireName()).put("model", model.id()));
      // The supervisor's own view of the fleet (every engine's latest status, pids included).
      router.get("/fleet").handler(ctx -> vertx.eventBus().<Object>request(options.addresses().fleetQuery(),
              new JsonObject())
          .onSuccess(reply -> json(ctx, 200, reply.body() instanceof JsonObject o ? o
              : new JsonObject().put("engines", reply.body())))
          .onFailure(err -> error(ctx, 503, "fleet_unavailable", "fleet view unavailable: "
              + err.getMessage())));
    }
    router.errorHandler(404, ctx -> error(ctx, 404, "not_found",
        "no route " + ctx.request().method() + " " + ctx.request().path()));
    router.errorHandler(405, ctx -> error(ctx, 405, "method_not_allowed",
        ctx.request().method() + " is not allowed on " + ctx.request().path()));
    router.errorHandler(413, ctx -> {
      if (!ctx.response().ended()) {
        tooLarge(ctx.response(), maxBody);
      }
    });
    router.errorHandler(500, ctx -> ErrorResponses.send(ctx.response(),
        ctx.failure() == null ? new IllegalStateException("internal error") : ctx.failure()));
    if (!routes.publicRoutes()) {
      return router;
    }
    return request -> {
      if (request.method() == HttpMethod.POST) {
        String path = request.path();
        if (COMPLETIONS.equals(path)) {
          completions.handle(request);
          return;
        }
        if (CHAT_COMPLETIONS.equals(path)) {
          chatCompletions.handle(request);
          return;
        }
      }
      router.handle(request);
    };
  }

  private static final String COMPLETIONS = "/v1/completions";
  private static final String CHAT_COMPLETIONS = "/v1/chat/completions";

  /** 413 in OpenAI's shape: the body is over {@code --max-body-bytes}. */
  static ApiError tooLarge(HttpServerResponse response, int limit) {
    ApiError error = new ApiError(413, ApiError.INVALID_REQUEST, "the request body is larger than "
        + limit + " bytes", null, "request_too_large");
    response.setStatusCode(413).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
        .end(error.toJson().encode());
    return error;
  }

  /** Vert.x Web's half of the public routes (the exact completion paths do not reach it). */
  private static void mountPublic(Router router, RouterOptions options, ModelInfo model,
      AccessControl access, CompletionsHandler completions, CompletionsHandler chatCompletions) {
    router.route("/v1/*").handler(access.api());
    router.post(COMPLETIONS)
        .handler(BodyHandler.create(false).setBodyLimit(options.get(MAX_BODY_BYTES)))
        .handler(completions);
    router.post(CHAT_COMPLETIONS)
        .handler(BodyHandler.create(false).setBodyLimit(options.get(MAX_BODY_BYTES)))
        .handler(chatCompletions);
    router.get("/v1/models").handler(ctx -> {
      JsonObject card = new JsonObject().put("id", model.id()).put("object", "model")
          .put("created", System.currentTimeMillis() / 1000).put("owned_by", "tandem");
      if (model.contextLength() > 0) {
        card.put("max_model_len", model.contextLength()); // as vLLM's card: clients size prompts by it
      }
      json(ctx, 200, new JsonObject().put("object", "list").put("data", new JsonArray().add(card)));
    });
  }

  private static void mountProbes(Router router, RouterOptions options, CompletionService service,
      EngineRegistry registry, RequestRunner runner) {
    router.get("/health").handler(ctx -> json(ctx, 200, new JsonObject().put("status", "up")));
    router.get("/ready").handler(ctx -> {
      boolean stopping = runner.draining();
      boolean ready = !stopping && service.dispatcher().canServe();
      JsonObject body = new JsonObject().put("ready", ready).put("stopping", stopping)
          .put("mode", options.get(ROUTER_MODE).wireName())
          .put("engines_ready", registry.ready().size()).put("engines_known", registry.statuses().size());
      if (!ready) {
        ctx.response().putHeader(HttpHeaders.RETRY_AFTER,
            Integer.toString(options.get(RETRY_AFTER_SECONDS)));
      }
      json(ctx, ready ? 200 : 503, body);
    });
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
