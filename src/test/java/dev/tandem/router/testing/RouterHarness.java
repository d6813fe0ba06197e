package dev.tandem.router.testing;

import static dev.tandem.config.RouterOptions.ROUTER_HOST;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.bus.LoadReport;
import dev.tandem.router.api.ModelInfo;
import dev.tandem.config.RouterMode;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.RouterVerticle;
import dev.tandem.testing.Eventually;
import dev.tandem.tokenizer.TextTokenizer;
import io.vertx.core.Closeable;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.MultiMap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A router verticle in this JVM in front of given engines, for VertxTestContext tests: every call
 * answers a future. Engine readiness is announced the way the fleet does it: {@link EngineStatus}
 * events on {@link Addresses#engineStatus()}.
 */
public final class RouterHarness {

  /** An HTTP answer read whole. */
  public record Answer(int status, MultiMap headers, Buffer body) {
    public JsonObject json() {
      return body.toJsonObject();
    }

    /** The data payloads of an SSE body, in order. */
    public List<String> events() {
      List<String> out = new ArrayList<>();
      for (String block : body.toString().split("\n\n")) {
        if (block.startsWith("data: ")) {
          out.add(block.substring(6));
        }
      }
      return out;
    }

    /** Concatenated text of choice {@code index} over the SSE chunks. */
    public String streamedText(int index) {
      StringBuilder sb = new StringBuilder();
      for (String e : events()) {
        if (e.equals("[DONE]")) {
          continue;
        }
        JsonArray choices = new JsonObject(e).getJsonArray("choices");
        if (choices == null) {
          continue;
        }
        for (Object c : choices) {
          JsonObject choice = (JsonObject) c;
          if (choice.getInteger("index") == index) {
            sb.append(choice.getString("text", ""));
          }
        }
      }
      return sb.toString();
    }
  }

  public final Vertx vertx;
  public final RouterVerticle router;
  private final HttpClientAgent http;
  /**
   * Client calls run on this context: chaining an HttpClient's futures from the JUnit thread
   * races the event loop (a callback registered late runs on the calling thread while the
   * response body is already being delivered) and loses answers now and then.
   */
  private final Context context;
  private final Closeable closeHook;

  private RouterHarness(Vertx vertx, RouterVerticle router) {
    this.vertx = vertx;
    this.router = router;
    this.http = vertx.createHttpClient(new PoolOptions().setHttp1MaxSize(256));
    this.context = vertx.getOrCreateContext();
    this.closeHook = done -> http.close().onComplete(done);
    // Held by its Vertx until either closes: Vert.x 5 closes an HttpClient that becomes
    // unreachable, even mid-request ("Pool closed"), and a test's future chain need not hold
    // its harness.
    ((VertxInternal) vertx).addCloseHook(closeHook);
  }

  /** Deploys a router on a free port of 127.0.0.1. */
  public static Future<RouterHarness> start(Vertx vertx, RouterOptions options, ModelInfo model,
      TextTokenizer tokenizer) {
    RouterVerticle verticle = new RouterVerticle(options.set(ROUTER_HOST, "127.0.0.1")
        .set(ROUTER_PORT, 0), model, tokenizer);
    return vertx.deployVerticle(verticle).map(id -> new RouterHarness(vertx, verticle));
  }

  /**
   * A round-robin router in front of {@code engine} (started here), announced as engine 1 and
   * READY: the setting of the bus API tests.
   */
  public static Future<RouterHarness> roundRobinBefore(Vertx vertx, FaultInjectingFakeEngine engine) {
    return engine.start()
        .compose(e -> start(vertx, new RouterOptions().set(ROUTER_MODE, RouterMode.ROUND_ROBIN),
            new ModelInfo("fake", 100_000, 1000), null))
        .compose(h -> h.announce(status(1, engine.url(), EngineRole.BOTH, EngineState.READY, 0))
            .map(h));
  }

  /** Closes once engine 1's in-flight count and {@code engine}'s running requests are 0. */
  public Future<Void> closeWhenIdle(FaultInjectingFakeEngine engine, long timeoutMs) {
    return until("everything idle", timeoutMs,
        () -> inFlight(1).map(n -> n == 0 && engine.running() == 0))
        .eventually(this::close);
  }

  public static EngineStatus status(int id, String url, EngineRole role, EngineState state,
      int generation) {
    return new EngineStatus(id, url, role, id, 1, state, generation, null);
  }

  public void publish(EngineStatus status) {
    vertx.eventBus().publish(Addresses.DEFAULT.engineStatus(), status.toJson());
  }

  /** Publishes a load report as an EngineVerticle does (this harness has none). */
  public void publish(LoadReport load) {
    vertx.eventBus().publish(Addresses.DEFAULT.engineLoad(), load.toJson());
  }

  /** Publishes each status and completes once the router's admin view shows them all. */
  public Future<Void> announce(EngineStatus... statuses) {
    for (EngineStatus s : statuses) {
      publish(s);
    }
    return until("the router to see the engines", 5_000, () -> adminEngines().map(view -> {
      JsonArray engines = view.getJsonArray("engines");
      for (EngineStatus s : statuses) {
        boolean seen = engines.stream().map(o -> (JsonObject) o).anyMatch(e ->
            e.getInteger("id") == s.id() && e.getString("state").equals(s.state().name())
                && e.getInteger("generation") == s.generation());
        if (!seen) {
          return false;
        }
      }
      return true;
    }));
  }

  public Future<JsonObject> adminEngines() {
    return get("/admin/engines").map(Answer::json);
  }

  /** The router's in-flight counter of engine {@code id}, read from its admin view. */
  public Future<Integer> inFlight(int id) {
    return adminEngines().map(view -> {
      for (Object o : view.getJsonArray("engines")) {
        JsonObject e = (JsonObject) o;
        if (e.getInteger("id") == id) {
          return e.getInteger("inFlight");
        }
      }
      throw new IllegalArgumentException("no engine " + id);
    });
  }

  /** Completes once every in-flight counter and open reservation of the router is back to 0. */
  public Future<Void> idle() {
    return until("the router's in-flight counters and reservations at 0", 2_000,
        () -> adminEngines().map(view -> view.getInteger("inFlightTotal") == 0
            && view.getInteger("reservationsOpen") == 0));
  }

  /** The router's /metrics page. */
  public Future<String> metrics() {
    return get("/metrics").map(a -> a.body().toString());
  }

  public int port() {
    return router.actualPort();
  }

  public Future<Answer> get(String path) {
    return onContext(() -> http.request(new RequestOptions().setMethod(HttpMethod.GET)
            .setHost("127.0.0.1").setPort(port()).setURI(path))
        .compose(req -> req.send())
        .compose(resp -> resp.body().map(b -> new Answer(resp.statusCode(), resp.headers(), b))));
  }

  public Future<Answer> post(String path, JsonObject body) {
    return post(path, body.encode());
  }

  public Future<Answer> post(String path, String body) {
    return onContext(() -> http.request(post(path))
        .compose(req -> req.send(body))
        .compose((HttpClientResponse resp) -> resp.body()
            .map(b -> new Answer(resp.statusCode(), resp.headers(), b))));
  }

  /** A client that sends a streaming request, closes its connection at the first chunk and goes. */
  public Future<Void> postAndLeaveAtTheFirstChunk(String path, JsonObject body) {
    return onContext(() -> http.request(post(path)).compose(req -> req.send(body.encode())
        .compose(resp -> {
          Promise<Void> first = Promise.promise();
          resp.handler(buf -> first.tryComplete());
          return first.future().compose(v -> req.connection().close());
        })));
  }

  /**
   * A client that sends a request and closes its connection {@code ms} later, whatever it has been
   * answered by then; completes once the connection is closed.
   */
  public Future<Void> postAndLeaveAfter(String path, JsonObject body, long ms) {
    return onContext(() -> http.request(post(path)).compose(req -> {
      req.send(body.encode()); // its answer, if any, is not read: the client goes
      Promise<Void> gone = Promise.promise();
      vertx.setTimer(ms, t -> req.connection().close().onComplete(gone));
      return gone.future();
    }));
  }

  /** Polls {@code check} until it answers true (see {@link Eventually}). */
  public Future<Void> until(String what, long timeoutMs, Supplier<Future<Boolean>> check) {
    return Eventually.until(vertx, Duration.ofMillis(timeoutMs), what, check);
  }

  /** Polls {@code condition} until it holds (see {@link Eventually}). */
  public Future<Void> untilTrue(String what, long timeoutMs, BooleanSupplier condition) {
    return Eventually.untilTrue(vertx, Duration.ofMillis(timeoutMs), what, condition);
  }

  public Future<Void> close() {
    ((VertxInternal) vertx).removeCloseHook(closeHook);
    return http.close();
  }

  private RequestOptions post(String path) {
    return new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port())
        .setURI(path).putHeader("content-type", "application/json");
  }

  /** Runs {@code work} on the harness's Vert.x context (see {@link #context}). */
  private <T> Future<T> onContext(Supplier<Future<T>> work) {
    Promise<T> p = Promise.promise();
    context.runOnContext(v -> {
      try {
        work.get().onComplete(p);
      } catch (RuntimeException e) { // e.g. a call after close(): fail the caller, not the context
        p.fail(e);
      }
    });
    return p.future();
  }
}
