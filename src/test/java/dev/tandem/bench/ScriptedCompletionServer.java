package dev.tandem.bench;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A FAKE completions server for the load generator's own tests: it answers on a schedule (fixed
 * delay to the first token, fixed gap between tokens) and fails on purpose in ways a real engine
 * cannot be made to (a 503 for chosen requests, a stream cut in the middle), so timing and error
 * accounting can be checked exactly. Requests are recognised by the {@code #N} tag that text
 * prompts start with. Real-engine runs are in {@code BenchAgainstEngineIT}.
 */
final class ScriptedCompletionServer {

  final long firstTokenDelayMs;
  final long tokenGapMs;
  final List<JsonObject> bodies = new CopyOnWriteArrayList<>();
  final List<String> paths = new CopyOnWriteArrayList<>();
  final AtomicInteger inFlight = new AtomicInteger();
  final AtomicInteger maxInFlight = new AtomicInteger();
  volatile int failEvery; // 0: never; else requests with index % failEvery == failEvery - 1 get a 503
  volatile int cutEvery;  // same rule, streams cut after the first token
  private final Vertx vertx;
  private HttpServer server;

  ScriptedCompletionServer(Vertx vertx, long firstTokenDelayMs, long tokenGapMs) {
    this.vertx = vertx;
    this.firstTokenDelayMs = firstTokenDelayMs;
    this.tokenGapMs = tokenGapMs;
  }

  Future<Integer> start() {
    server = vertx.createHttpServer().requestHandler(this::handle);
    return server.listen(0, "127.0.0.1").map(HttpServer::actualPort);
  }

  private void handle(HttpServerRequest req) {
    if (req.path().equals("/v1/models")) {
      req.response().end(new JsonObject().put("object", "list")
          .put("data", new JsonArray().add(new JsonObject().put("id", "scripted-model"))).encode());
      return;
    }
    req.body().onSuccess(buf -> {
      JsonObject body = buf.toJsonObject();
      paths.add(req.path());
      bodies.add(body);
      int now = inFlight.incrementAndGet();
      maxInFlight.accumulateAndGet(now, Math::max);
      req.response().endHandler(v -> inFlight.decrementAndGet());
      req.response().closeHandler(v -> inFlight.decrementAndGet());
      long index = indexOf(body);
      if (failEvery > 0 && index % failEvery == failEvery - 1) {
        req.response().setStatusCode(503).end("{\"error\":{\"message\":\"scripted overload\",\"type\":\"x\"}}");
        return;
      }
      boolean cut = cutEvery > 0 && index % cutEvery == cutEvery - 1;
      int tokens = body.getInteger("max_tokens");
      if (!body.getBoolean("stream", false)) {
        vertx.setTimer(firstTokenDelayMs + tokenGapMs * (tokens - 1), id -> req.response()
            .putHeader("content-type", "application/json")
            .end(chunk("x".repeat(tokens), "length").put("usage", new JsonObject().put("prompt_tokens", 5)
                .put("completion_tokens", tokens).put("total_tokens", tokens + 5)).encode()));
        return;
      }
      req.response().setChunked(true).putHeader("content-type", "text/event-stream; charset=utf-8");
      vertx.setTimer(firstTokenDelayMs, id -> sendToken(req, 0, tokens, cut));
    });
  }

  private void sendToken(HttpServerRequest req, int i, int tokens, boolean cut) {
    boolean last = i == tokens - 1;
    req.response().write("data: " + chunk("t" + i, last ? "length" : null).encode() + "\n\n");
    if (cut) {
      req.connection().close();
      return;
    }
    if (last) {
      // Engine-side timings as MLC reports them under --enable-debug: here exactly the schedule.
      JsonObject extra = new JsonObject().put("ttft_s", firstTokenDelayMs / 1000.0)
          .put("end_to_end_latency_s", (firstTokenDelayMs + tokenGapMs * (tokens - 1)) / 1000.0);
      req.response().write("data: " + new JsonObject().put("choices", new JsonArray()).put("usage",
          new JsonObject().put("prompt_tokens", 5).put("completion_tokens", tokens).put("extra", extra)).encode()
          + "\n\n");
      req.response().end("data: [DONE]\n\n");
      return;
    }
    vertx.setTimer(tokenGapMs, id -> sendToken(req, i + 1, tokens, cut));
  }

  private static JsonObject chunk(String text, String finish) {
    return new JsonObject().put("id", "cmpl-1").put("object", "text_completion").put("choices",
        new JsonArray().add(new JsonObject().put("index", 0).put("text", text).put("finish_reason", finish)));
  }

  private static long indexOf(JsonObject body) {
    String prompt = body.containsKey("messages") // a chat: its first user message leads with "#i"
        ? body.getJsonArray("messages").stream().map(m -> (JsonObject) m)
            .filter(m -> m.getString("role").equals("user")).findFirst().orElseThrow()
            .getString("content")
        : body.getString("prompt");
    return Long.parseLong(prompt.substring(1, prompt.indexOf(' ')));
  }

  Future<Void> close() {
    return server.close();
  }
}
