package dev.tandem.router.admin;

import dev.tandem.api.ApiError;
import dev.tandem.api.ErrorResponses;
import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineStatus;
import dev.tandem.bus.LoadReport;
import dev.tandem.router.access.ClientKey;
import dev.tandem.router.admission.AdmissionGate;
import dev.tandem.router.policy.LoadGauges;
import dev.tandem.router.registry.EngineRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API (behind the admin key): the router's view of every engine, and what an operator
 * does to one: drain it (no new requests; in-flight ones finish), resume it, restart it (its
 * EngineVerticle, over {@link Addresses#engineControl}), add one to the fleet and remove one (the
 * supervisor, over {@link Addresses#fleetAdd()} / {@link Addresses#fleetRemove()}: the router never
 * imports the fleet). Every action is logged with the admin key's name, never the key.
 */
public final class AdminRoutes {

  private static final Logger LOG = LoggerFactory.getLogger(AdminRoutes.class);
  /** The supervisor bounds an engine's start with its own startup timeout; this only catches a lost reply. */
  private static final long FLEET_CHANGE_TIMEOUT_MS = Duration.ofMinutes(10).toMillis();
  private static final long CONTROL_TIMEOUT_MS = Duration.ofSeconds(60).toMillis();
  private static final long DRAIN_POLL_MS = 100;

  private final Vertx vertx;
  private final EngineRegistry registry;
  private final AdmissionGate gate;
  private final LongSupplier reservationsOpen;
  private final long removeGraceMs;
  private final Addresses bus;

  public AdminRoutes(Vertx vertx, EngineRegistry registry, AdmissionGate gate,
      LongSupplier reservationsOpen, Duration removeGrace, Addresses bus) {
    this.vertx = vertx;
    this.registry = registry;
    this.gate = gate;
    this.reservationsOpen = reservationsOpen;
    this.removeGraceMs = removeGrace.toMillis();
    this.bus = bus;
  }

  /** Mounts the routes; the caller has put the admin check in front of {@code /admin/*}. */
  public void mount(Router router) {
    router.get("/admin/engines").handler(ctx -> json(ctx, 200, engines()));
    router.post("/admin/engines/:id/drain").handler(ctx -> withEngine(ctx, "drain", id -> {
      registry.drain(id);
      return Future.succeededFuture(engine(id));
    }));
    router.post("/admin/engines/:id/resume").handler(ctx -> withEngine(ctx, "resume", id -> {
      registry.resume(id);
      return Future.succeededFuture(engine(id));
    }));
    router.post("/admin/engines/:id/restart").handler(ctx -> withEngine(ctx, "restart", id ->
        vertx.eventBus().<Object>request(bus.engineControl(id), "restart",
                new DeliveryOptions().setSendTimeout(CONTROL_TIMEOUT_MS))
            .map(reply -> reply.body() instanceof JsonObject o ? o : new JsonObject())));
    router.delete("/admin/engines/:id").handler(this::remove);
    router.post("/admin/engines").handler(BodyHandler.create(false).setBodyLimit(64 * 1024))
        .handler(this::add);
  }

  /** Every engine: status (state, role, generation), drained, in-flight, gauges, last load. */
  public JsonObject engines() {
    JsonArray list = new JsonArray();
    registry.statuses().forEach(s -> list.add(engine(s.id())));
    JsonObject admission = new JsonObject().put("running", gate.running())
        .put("queued", gate.queued()).put("maxConcurrent", gate.maxConcurrent())
        .put("maxQueue", gate.maxQueue());
    return new JsonObject().put("engines", list).put("inFlightTotal", registry.totalInFlight())
        .put("reservationsOpen", reservationsOpen.getAsLong()).put("admission", admission);
  }

  private JsonObject engine(int id) {
    EngineStatus s = registry.status(id).orElse(null);
    if (s == null) {
      return new JsonObject().put("id", id).put("removed", true);
    }
    JsonObject e = s.toJson().put("inFlight", registry.inFlight(id)).put("drained", registry.drained(id));
    LoadGauges g = registry.gauges(id);
    if (g != null) {
      e.put("gauges", new JsonObject().put("running", g.running()).put("waiting", g.waiting())
          .put("kvFreePages", g.freeKvPages()).put("kvTotalPages", g.totalKvPages()));
    }
    LoadReport load = registry.load(id);
    if (load != null) {
      e.put("load", load.toJson()); // as the engine's EngineVerticle last published it
    }
    return e;
  }

  private interface EngineAction {
    Future<JsonObject> apply(int id);
  }

  private void withEngine(RoutingContext ctx, String action, EngineAction work) {
    Integer id = engineId(ctx);
    if (id == null) {
      return;
    }
    if (registry.status(id).isEmpty()) {
      fail(ctx, action + " engine " + id, ApiError.notFound("id", "no engine " + id + " (known: "
          + registry.statuses().stream().map(s -> Integer.toString(s.id())).toList() + ")"));
      return;
    }
    LOG.info("admin ({}): {} engine {}", who(ctx), action, id);
    work.apply(id).onSuccess(body -> json(ctx, 200, body))
        .onFailure(err -> fail(ctx, action + " engine " + id, err));
  }

  private void add(RoutingContext ctx) {
    JsonObject body;
    try {
      body = ctx.body().asJsonObject();
    } catch (RuntimeException e) {
      body = null;
    }
    if (body == null) {
      fail(ctx, "add engine", ApiError.invalid(null, "invalid_json",
          "the body must be a JSON object: {\"port\": 8085, \"host\", \"role\", \"numGpus\"}"));
      return;
    }
    LOG.info("admin ({}): add engine {}", who(ctx), body.encode());
    vertx.eventBus().<JsonObject>request(bus.fleetAdd(), body,
            new DeliveryOptions().setSendTimeout(FLEET_CHANGE_TIMEOUT_MS))
        .onSuccess(reply -> {
          LOG.info("admin ({}): engine {} added", who(ctx), reply.body().getValue("id"));
          json(ctx, 201, reply.body());
        })
        .onFailure(err -> fail(ctx, "add engine", err));
  }

  /** Drains the engine, waits for its in-flight requests (up to the grace), then has it stopped. */
  private void remove(RoutingContext ctx) {
    Integer id = engineId(ctx);
    if (id == null) {
      return;
    }
    LOG.info("admin ({}): remove engine {}", who(ctx), id);
    boolean drainedBefore = registry.drained(id);
    registry.drain(id);
    long began = System.currentTimeMillis();
    drained(id, began + removeGraceMs)
        .compose(left -> vertx.eventBus().<JsonObject>request(bus.fleetRemove(),
                new JsonObject().put("id", id), new DeliveryOptions().setSendTimeout(FLEET_CHANGE_TIMEOUT_MS))
            .map(reply -> {
              registry.remove(id);
              LOG.info("admin ({}): engine {} removed ({} request(s) were still in flight)",
                  who(ctx), id, left);
              return new JsonObject().put("removed", reply.body())
                  .put("waitedMs", System.currentTimeMillis() - began).put("inFlightLeft", left);
            }))
        .onSuccess(body -> json(ctx, 200, body))
        .onFailure(err -> {
          if (!drainedBefore) {
            registry.resume(id); // not removed (e.g. a node's engine): back in rotation
          }
          fail(ctx, "remove engine " + id, err);
        });
  }

  /** Completes with the in-flight count when it is 0 or the deadline passed. */
  private Future<Integer> drained(int id, long deadlineMillis) {
    Promise<Integer> done = Promise.promise();
    pollDrained(id, deadlineMillis, done);
    return done.future();
  }

  private void pollDrained(int id, long deadlineMillis, Promise<Integer> done) {
    int left = registry.inFlight(id);
    if (left == 0 || System.currentTimeMillis() >= deadlineMillis) {
      done.complete(left);
      return;
    }
    vertx.setTimer(DRAIN_POLL_MS, t -> pollDrained(id, deadlineMillis, done));
  }

  private static Integer engineId(RoutingContext ctx) {
    try {
      return Integer.parseInt(ctx.pathParam("id"));
    } catch (NumberFormatException e) {
      ErrorResponses.send(ctx.response(), ApiError.invalid("id", "an engine id is a number, not '"
          + ctx.pathParam("id") + "'"));
      return null;
    }
  }

  /** Bus failures keep their status: 409 (restarting already, a world that cannot grow), 404, 400. */
  private static void fail(RoutingContext ctx, String what, Throwable err) {
    ApiError error;
    if (err instanceof ApiError e) {
      error = e;
    } else if (err instanceof ReplyException re) {
      error = switch (re.failureType()) {
        case NO_HANDLERS -> ApiError.unavailable("fleet_unavailable", what
            + ": nothing answers on the bus (a router without a supervisor cannot change the fleet)");
        case TIMEOUT -> ApiError.unavailable("fleet_timeout", what + ": no answer in time");
        default -> new ApiError(re.failureCode() >= 400 && re.failureCode() < 600
            ? re.failureCode() : 500, re.failureCode() >= 500 ? ApiError.SERVER_ERROR
            : ApiError.INVALID_REQUEST, what + ": " + re.getMessage(), null, "fleet_refused");
      };
    } else {
      error = ApiError.internal(what + ": " + err.getMessage());
    }
    LOG.info("admin ({}): {} failed: {}", who(ctx), what, error.getMessage());
    ErrorResponses.send(ctx.response(), error);
  }

  private static String who(RoutingContext ctx) {
    ClientKey key = ctx.get(ClientKey.CONTEXT_KEY);
    return key == null ? "no admin key configured" : key.name();
  }

  private static void json(RoutingContext ctx, int status, JsonObject body) {
    ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
        .end(body.encode());
  }
}
