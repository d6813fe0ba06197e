package dev.tandem.bench;

import dev.tandem.api.SseWriter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A NULL ENGINE for measuring proxies and routers: it speaks the engine's HTTP API
 * ({@code /v1/models}, {@code /health}, {@code /metrics}, {@code /debug/dump_engine_metrics} — where
 * an EngineVerticle reads its load —, {@code /v1/completions} streaming or not) but has no model. Each answer is {@code max_tokens} one-character tokens on a fixed
 * schedule (first token after {@code firstTokenMs}, then one every {@code tokenGapMs}), so the
 * upstream's time is known and nearly constant and what a proxy adds stands out. Its final usage
 * record carries its own {@code ttft_s} / {@code end_to_end_latency_s} as MLC engines do.
 */
public final class NullEngineServer extends VerticleBase {

  private final String host;
  private final int port;
  private final long firstTokenMs;
  private final long tokenGapMs;
  private final AtomicInteger running;
  private HttpServer server;

  /** @param running shared by every instance, shown as the running gauge */
  public NullEngineServer(String host, int port, long firstTokenMs, long tokenGapMs, AtomicInteger running) {
    this.host = host;
    this.port = port;
    this.firstTokenMs = firstTokenMs;
    this.tokenGapMs = tokenGapMs;
    this.running = running;
  }

  @Override
  public Future<?> start() {
    server = vertx.createHttpServer().requestHandler(this::handle);
    return server.listen(port, host);
  }

  public int actualPort() {
    return server.actualPort();
  }

  private void handle(HttpServerRequest req) {
    switch (req.path()) {
      case "/v1/models" -> req.response().putHeader("content-type", "application/json")
          .end(new JsonObject().put("object", "list").put("data", new JsonArray().add(new JsonObject()
              .put("id", "null-engine").put("object", "model").put("owned_by", "tandem-bench"))).encode());
      case "/health" -> req.response().end("ok");
      case "/metrics" -> req.response().putHeader("content-type", "text/plain; version=0.0.4")
          .end("tandem_engine_running " + running.get() + "\ntandem_engine_waiting 0\n"
              + "tandem_engine_kv_pages_free 100000\ntandem_engine_kv_pages_total 100000\n");
      case "/debug/dump_engine_metrics" -> req.response().putHeader("content-type", "application/json")
          .end(new JsonObject().put("metrics", new JsonObject().put("running", running.get())
              .put("waiting", 0).put("kv_pages_free", 100_000).put("kv_pages_total", 100_000)).encode());
      case "/v1/completions" -> req.body().onSuccess(buf -> {
        JsonObject body;
        try {
          body = buf.toJsonObject();
        } catch (DecodeException e) {
          error(req.response(), "request body is not JSON: " + e.getMessage());
          return;
        }
        complete(req.response(), body);
      });
      default -> req.response().setStatusCode(404).end();
    }
  }

  private void complete(HttpServerResponse resp, JsonObject body) {
    Object maxTokens = body.getValue("max_tokens");
    if (!(maxTokens instanceof Number n) || n.intValue() < 1) {
      error(resp, "the null engine needs max_tokens >= 1");
      return;
    }
    int tokens = n.intValue();
    Object prompt = body.getValue("prompt");
    int promptTokens = prompt instanceof JsonArray a ? a.size() : String.valueOf(prompt).split(" ").length;
    boolean usage = body.getJsonObject("stream_options", new JsonObject()).getBoolean("include_usage", false);
    long start = System.nanoTime();
    running.incrementAndGet();
    resp.endHandler(v -> running.decrementAndGet());
    resp.closeHandler(v -> running.decrementAndGet());
    if (!body.getBoolean("stream", false)) {
      vertx.setTimer(Math.max(1, firstTokenMs + tokenGapMs * (tokens - 1)), id -> resp
          .putHeader("content-type", "application/json")
          .end(chunk("x".repeat(tokens), "length").put("usage", usage(promptTokens, tokens, start, start)).encode()));
      return;
    }
    SseWriter sse = new SseWriter(resp).start();
    vertx.setTimer(Math.max(1, firstTokenMs), id -> token(sse, 0, tokens, promptTokens, usage, start, 0));
  }

  private void token(SseWriter sse, int i, int tokens, int promptTokens, boolean usage, long start,
      long firstNanos) {
    if (sse.ended()) {
      return;
    }
    long first = i == 0 ? System.nanoTime() : firstNanos;
    boolean last = i == tokens - 1;
    sse.write(chunk("x", last ? "length" : null));
    if (!last) {
      vertx.setTimer(Math.max(1, tokenGapMs), id -> token(sse, i + 1, tokens, promptTokens, usage, start, first));
      return;
    }
    sse.end(usage ? chunk(null, null).put("choices", new JsonArray())
        .put("usage", usage(promptTokens, tokens, start, first)) : null);
  }

  private static JsonObject usage(int promptTokens, int tokens, long start, long first) {
    long now = System.nanoTime();
    return new JsonObject().put("prompt_tokens", promptTokens).put("completion_tokens", tokens)
        .put("total_tokens", promptTokens + tokens).put("extra", new JsonObject()
            .put("ttft_s", (first - start) / 1e9).put("end_to_end_latency_s", (now - start) / 1e9));
  }

  private static JsonObject chunk(String text, String finish) {
    JsonArray choices = new JsonArray();
    if (text != null) {
      choices.add(new JsonObject().put("finish_reason", finish).put("index", 0).put("logprobs", null).put("text", text));
    }
    return new JsonObject().put("id", "cmpl-null").put("choices", choices).put("created", 0).put("model", null)
        .put("object", "text_completion").put("usage", null);
  }

  private static void error(HttpServerResponse resp, String message) {
    resp.setStatusCode(400).putHeader("content-type", "application/json").end(new JsonObject().put("error",
        new JsonObject().put("message", message).put("type", "invalid_request_error").put("param", null)
            .put("code", 400)).encode());
  }

  /** Deploys {@code instances} servers sharing one port (Vert.x balances connections across them). */
  public static Future<String> deploy(Vertx vertx, String host, int port, long firstTokenMs, long tokenGapMs,
      int instances) {
    AtomicInteger running = new AtomicInteger();
    return vertx.deployVerticle(() -> new NullEngineServer(host, port, firstTokenMs, tokenGapMs, running),
        new io.vertx.core.DeploymentOptions().setInstances(instances));
  }
}
