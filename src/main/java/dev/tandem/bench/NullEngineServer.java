package dev.tandem.bench;

import dev.tandem.kv.KvAppendMetadata;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A NULL ENGINE for measuring proxies and routers: it speaks the engine's HTTP API
 * ({@code /v1/models}, {@code /health}, {@code /metrics}, {@code /debug/dump_engine_metrics} — where
 * an EngineVerticle reads its load —, {@code /v1/completions} streaming or not) but has no model.
 * Each answer is {@code max_tokens} one-character tokens on a fixed schedule (first token after
 * {@code firstTokenMs}, then one every {@code tokenGapMs}), so the upstream's time is known and
 * nearly constant and what a proxy adds stands out. Its final usage record carries its own
 * {@code ttft_s} / {@code end_to_end_latency_s} as MLC engines do.
 *
 * <p>With {@code tokenGapMs == 0} it is a <em>zero-cost upstream</em>: once the first-token delay
 * (none if 0) has passed, the whole answer (every chunk, the usage chunk, {@code [DONE]}) goes out
 * in one write as a response of known length, built by appending precomputed bytes; nothing is
 * scheduled per token. Optional request fields may be absent or JSON null; a body it cannot serve
 * gets a 400, never silence.
 *
 * <p>It also answers MLC's three MicroServing calls at no cost, so that a router's disaggregated
 * path can be measured the same way: {@code prep_recv} reserves nothing and answers metadata
 * naming one slot per position of the window (what an MLC engine's answer holds, so a router
 * that counts the slots accepts it), {@code remote_send} sends nothing and answers {@code {}},
 * {@code start_generate} answers as {@code /v1/completions}.
 */
public final class NullEngineServer extends VerticleBase {

  private static final String ID = "cmpl-null";
  /** A streamed token's event, and the last token's (finish reason "length"). */
  private static final byte[] TOKEN_EVENT = bytes("data: " + chunk("x", null).encode() + "\n\n");
  private static final byte[] LAST_TOKEN_EVENT = bytes("data: " + chunk("x", "length").encode() + "\n\n");
  private static final byte[] DONE_EVENT = bytes("data: [DONE]\n\n");
  private static final CharSequence EVENT_STREAM = HttpHeaders.createOptimized("text/event-stream; charset=utf-8");
  private static final CharSequence NO_CACHE = HttpHeaders.createOptimized("no-cache");
  private static final CharSequence APPLICATION_JSON = HttpHeaders.createOptimized("application/json");

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
      case "/microserving/prep_recv" -> req.body().onSuccess(buf -> prepRecv(req.response(), buf));
      case "/microserving/remote_send" -> req.body().onSuccess(buf -> remoteSend(req.response(), buf));
      case "/v1/completions", "/microserving/start_generate" -> req.body().onSuccess(buf -> {
        Request r;
        try {
          r = Request.parse(buf);
        } catch (RuntimeException e) {
          // Whatever the body holds, it is answered: an exception here used to leave it hanging.
          error(req.response(), String.valueOf(e.getMessage()));
          return;
        }
        complete(req.response(), r);
      });
      default -> req.response().setStatusCode(404).end();
    }
  }

  /** MLC's answer to prep_recv for the window {@code [0, end)}: nothing cached, its slots. */
  private static void prepRecv(HttpServerResponse resp, Buffer buf) {
    int end;
    try {
      JsonObject body = buf.toJsonObject();
      int length = Request.promptTokens(body);
      if (!(body.getValue("end") instanceof Number e)) {
        throw new IllegalArgumentException("prep_recv needs an integer end");
      }
      end = e.intValue() < 0 ? length + e.intValue() : e.intValue();
      if (end < 0 || end >= length) {
        throw new IllegalArgumentException("prep_recv end " + e + " outside [0, " + length + ")");
      }
    } catch (RuntimeException e) {
      error(resp, String.valueOf(e.getMessage()));
      return;
    }
    int[] slots = new int[end];
    for (int i = 0; i < end; i++) {
      slots[i] = i;
    }
    resp.putHeader(HttpHeaders.CONTENT_TYPE, APPLICATION_JSON).end(new JsonObject()
        .put("kv_append_metadata", KvAppendMetadata.encode(slots)).put("prefix_matched_length", 0)
        .encode());
  }

  /** MLC's answer to remote_send once the KV is "sent": an empty object. */
  private static void remoteSend(HttpServerResponse resp, Buffer buf) {
    try {
      JsonObject body = buf.toJsonObject();
      if (!(body.getValue("begin") instanceof Number) || !(body.getValue("end") instanceof Number)
          || !(body.getValue("kv_addr_info") instanceof String)) {
        throw new IllegalArgumentException("remote_send needs begin, end and kv_addr_info");
      }
    } catch (RuntimeException e) {
      error(resp, String.valueOf(e.getMessage()));
      return;
    }
    resp.putHeader(HttpHeaders.CONTENT_TYPE, APPLICATION_JSON).end("{}");
  }

  /** What the null engine reads from a completion request; optional fields absent or null alike. */
  record Request(int tokens, int promptTokens, boolean stream, boolean usage) {

    /** @throws IllegalArgumentException with the reason when the body cannot be served */
    static Request parse(Buffer buf) {
      JsonObject body;
      try {
        body = buf.toJsonObject();
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("request body is not a JSON object: " + e.getMessage());
      }
      if (!(body.getValue("max_tokens") instanceof Number n) || n.intValue() < 1) {
        throw new IllegalArgumentException("the null engine needs max_tokens >= 1");
      }
      int promptTokens = promptTokens(body);
      boolean stream = flag(body, "stream");
      Object options = body.getValue("stream_options");
      if (options != null && !(options instanceof JsonObject)) {
        throw new IllegalArgumentException("stream_options is not an object");
      }
      boolean usage = options != null && flag((JsonObject) options, "include_usage");
      return new Request(n.intValue(), promptTokens, stream, usage);
    }

    /** Token ids counted, a text prompt's words; 0 without a prompt. */
    static int promptTokens(JsonObject body) {
      Object prompt = body.getValue("prompt");
      return prompt instanceof JsonArray a ? a.size()
          : prompt instanceof String s ? s.split(" ").length : 0;
    }

    private static boolean flag(JsonObject o, String key) {
      Object v = o.getValue(key);
      if (v != null && !(v instanceof Boolean)) {
        throw new IllegalArgumentException(key + " is not a boolean");
      }
      return Boolean.TRUE.equals(v);
    }
  }

  private void complete(HttpServerResponse resp, Request r) {
    long start = System.nanoTime();
    running.incrementAndGet();
    resp.endHandler(v -> running.decrementAndGet());
    resp.closeHandler(v -> running.decrementAndGet());
    if (!r.stream()) {
      long delay = firstTokenMs + tokenGapMs * (r.tokens() - 1);
      Runnable answer = () -> {
        if (!resp.closed()) {
          resp.putHeader(HttpHeaders.CONTENT_TYPE, APPLICATION_JSON).end(chunk("x".repeat(r.tokens()), "length")
              .put("usage", usage(r.promptTokens(), r.tokens(), start, System.nanoTime())).encode());
        }
      };
      later(delay, answer);
      return;
    }
    if (tokenGapMs <= 0) {
      later(firstTokenMs, () -> whole(resp, r, start));
      return;
    }
    streamHead(resp).setChunked(true);
    vertx.setTimer(Math.max(1, firstTokenMs), id -> token(resp, 0, r, start, 0));
  }

  /** Runs {@code action} now if {@code delayMs} is 0, else after it. */
  private void later(long delayMs, Runnable action) {
    if (delayMs <= 0) {
      action.run();
    } else {
      vertx.setTimer(delayMs, id -> action.run());
    }
  }

  private static HttpServerResponse streamHead(HttpServerResponse resp) {
    MultiMap headers = resp.headers();
    headers.set(HttpHeaders.CONTENT_TYPE, EVENT_STREAM).set(HttpHeaders.CACHE_CONTROL, NO_CACHE);
    return resp;
  }

  /** The whole stream in one write: every token's event, the usage event if asked, [DONE]. */
  private static void whole(HttpServerResponse resp, Request r, long start) {
    if (resp.closed()) {
      return;
    }
    int n = r.tokens();
    Buffer out = Buffer.buffer(TOKEN_EVENT.length * n + DONE_EVENT.length + (r.usage() ? 400 : 0));
    for (int i = 0; i < n - 1; i++) {
      out.appendBytes(TOKEN_EVENT);
    }
    out.appendBytes(LAST_TOKEN_EVENT);
    if (r.usage()) {
      long now = System.nanoTime();
      out.appendBytes(usageEvent(r, start, now, now));
    }
    out.appendBytes(DONE_EVENT);
    streamHead(resp).end(out);
  }

  private void token(HttpServerResponse resp, int i, Request r, long start, long firstNanos) {
    if (resp.closed() || resp.ended()) {
      return;
    }
    long first = i == 0 ? System.nanoTime() : firstNanos;
    boolean last = i == r.tokens() - 1;
    if (!last) {
      resp.write(Buffer.buffer(TOKEN_EVENT));
      vertx.setTimer(Math.max(1, tokenGapMs), id -> token(resp, i + 1, r, start, first));
      return;
    }
    Buffer tail = Buffer.buffer(LAST_TOKEN_EVENT);
    if (r.usage()) {
      tail.appendBytes(usageEvent(r, start, first, System.nanoTime()));
    }
    resp.end(tail.appendBytes(DONE_EVENT));
  }

  private static byte[] usageEvent(Request r, long start, long first, long now) {
    JsonObject usage = chunk(null, null).put("choices", new JsonArray())
        .put("usage", usage(r.promptTokens(), r.tokens(), start, first, now));
    return bytes("data: " + usage.encode() + "\n\n");
  }

  private static JsonObject usage(int promptTokens, int tokens, long start, long first) {
    return usage(promptTokens, tokens, start, first, System.nanoTime());
  }

  private static JsonObject usage(int promptTokens, int tokens, long start, long first, long now) {
    return new JsonObject().put("prompt_tokens", promptTokens).put("completion_tokens", tokens)
        .put("total_tokens", promptTokens + tokens).put("extra", new JsonObject()
            .put("ttft_s", (first - start) / 1e9).put("end_to_end_latency_s", (now - start) / 1e9));
  }

  private static JsonObject chunk(String text, String finish) {
    JsonArray choices = new JsonArray();
    if (text != null) {
      choices.add(new JsonObject().put("finish_reason", finish).put("index", 0).put("logprobs", null).put("text", text));
    }
    return new JsonObject().put("id", ID).put("choices", choices).put("created", 0).put("model", null)
        .put("object", "text_completion").put("usage", null);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
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
