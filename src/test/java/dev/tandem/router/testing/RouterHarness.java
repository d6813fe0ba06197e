package dev.tandem.router.testing;

import static dev.tandem.config.RouterOptions.ROUTER_HOST;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.bus.LoadReport;
import dev.tandem.router.api.ModelInfo;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.RouterVerticle;
import dev.tandem.tokenizer.TextTokenizer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.MultiMap;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A router verticle in this JVM in front of given engines, with blocking helpers for tests (they
 * block the JUnit thread, never an event loop). Engine readiness is announced the way the fleet
 * does it: {@link EngineStatus} events on {@link Addresses#ENGINE_STATUS}.
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
  public final HttpClientAgent http;
  /**
   * Client calls run on this context: chaining an HttpClient's futures from the JUnit thread
   * races the event loop (a callback registered late runs on the calling thread while the
   * response body is already being delivered) and loses answers now and then.
   */
  private final Context context;

  private RouterHarness(Vertx vertx, RouterVerticle router) {
    this.vertx = vertx;
    this.router = router;
    this.http = vertx.createHttpClient(new PoolOptions().setHttp1MaxSize(256));
    this.context = vertx.getOrCreateContext();
  }

  /** Runs {@code work} on the harness's Vert.x context (see {@link #context}). */
  public <T> Future<T> onContext(Supplier<Future<T>> work) {
    Promise<T> p = Promise.promise();
    context.runOnContext(v -> work.get().onComplete(p));
    return p.future();
  }

  public static RouterHarness start(Vertx vertx, RouterOptions options, ModelInfo model,
      TextTokenizer tokenizer) {
    RouterVerticle verticle = new RouterVerticle(options.set(ROUTER_HOST, "127.0.0.1")
        .set(ROUTER_PORT, 0), model, tokenizer);
    await(vertx.deployVerticle(verticle));
    return new RouterHarness(vertx, verticle);
  }

  public static <T> T await(Future<T> f) {
    try {
      return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new RuntimeException(e.getCause());
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  public static EngineStatus status(int id, String url, EngineRole role, EngineState state,
      int generation) {
    return new EngineStatus(id, url, role, id, 1, state, generation, null);
  }

  public void publish(EngineStatus status) {
    vertx.eventBus().publish(Addresses.ENGINE_STATUS, status.toJson());
  }

  /** Publishes a load report as an EngineVerticle does (this harness has none). */
  public void publish(LoadReport load) {
    vertx.eventBus().publish(Addresses.ENGINE_LOAD, load.toJson());
  }

  /** Publishes READY for each engine and waits until the router has them all in rotation. */
  public void announce(EngineStatus... statuses) {
    for (EngineStatus s : statuses) {
      publish(s);
    }
    waitUntil(() -> {
      JsonArray engines = adminEngines().getJsonArray("engines");
      for (EngineStatus s : statuses) {
        boolean seen = engines.stream().map(o -> (JsonObject) o).anyMatch(e ->
            e.getInteger("id") == s.id() && e.getString("state").equals(s.state().name())
                && e.getInteger("generation") == s.generation());
        if (!seen) {
          return false;
        }
      }
      return true;
    }, 5_000, "router to see the engines");
  }

  public JsonObject adminEngines() {
    return get("/admin/engines").json();
  }

  /** The router's in-flight counter of engine {@code id}, read from its admin view. */
  public int inFlight(int id) {
    for (Object o : adminEngines().getJsonArray("engines")) {
      JsonObject e = (JsonObject) o;
      if (e.getInteger("id") == id) {
        return e.getInteger("inFlight");
      }
    }
    throw new IllegalArgumentException("no engine " + id);
  }

  public int port() {
    return router.actualPort();
  }

  public Answer get(String path) {
    return await(onContext(() -> http.request(new RequestOptions().setMethod(HttpMethod.GET)
            .setHost("127.0.0.1").setPort(port()).setURI(path))
        .compose(req -> req.send())
        .compose(resp -> resp.body().map(b -> new Answer(resp.statusCode(), resp.headers(), b)))));
  }

  public Answer post(String path, String body) {
    return await(postAsync(path, body));
  }

  public Answer post(String path, JsonObject body) {
    return post(path, body.encode());
  }

  public Future<Answer> postAsync(String path, String body) {
    return onContext(() -> http.request(new RequestOptions().setMethod(HttpMethod.POST)
            .setHost("127.0.0.1").setPort(port()).setURI(path).putHeader("content-type", "application/json"))
        .compose(req -> req.send(body))
        .compose((HttpClientResponse resp) -> resp.body()
            .map(b -> new Answer(resp.statusCode(), resp.headers(), b))));
  }

  public void close() {
    await(http.close());
  }

  /** Polls {@code condition} (on the test thread) until true or the deadline passes. */
  public static void waitUntil(java.util.function.BooleanSupplier condition, long timeoutMs,
      String what) {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (!condition.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      try {
        Thread.sleep(10); // test thread only
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
