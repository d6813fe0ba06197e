package dev.tandem.router.testing;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A FAKE engine, for router tests ONLY where a real engine cannot be made to fail on demand:
 * hangs, dropped connections, 5xx, malformed chunks, preempts at a chosen token. It speaks the
 * builtin engine's wire protocol (SSE chunks, a usage record with {@code extra.output_token_ids}
 * as under {@code --enable-debug}, optionally vLLM-style per-chunk {@code token_ids}, MicroServing
 * calls, release) with a deterministic toy "model": the next token is a function of the
 * whole sequence so far, so a continuation from prompt + generated tokens yields exactly the
 * tokens an uninterrupted run would (as a batch-invariant real engine does); seeded sampling is
 * a function of (seed, choice, position), so only a replay reproduces it.
 *
 * <p>Happy-path behaviour of the router is asserted against real builtin engines in the *IT tests.
 */
public final class FaultInjectingFakeEngine {

  /** What the next generation request (or call on a given path) does. */
  public record Behavior(Kind kind, int afterTokens) {
    public enum Kind { NORMAL, EXPIRED, FAIL_500, BUSY_503, REJECT_400, HANG, HANG_AFTER, DROP_AFTER, PREEMPT_AFTER, GARBAGE_AFTER, ERROR_EVENT_AFTER, NO_DONE }

    public static Behavior of(Kind kind) {
      return new Behavior(kind, 0);
    }

    public static Behavior after(Kind kind, int tokens) {
      return new Behavior(kind, tokens);
    }
  }

  /** One request the fake received. */
  public record Received(String path, JsonObject body) {}

  public static final String GENERATION = "generation";

  private final Vertx vertx;
  private final Map<String, Deque<Behavior>> scripts = new ConcurrentHashMap<>();
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final Map<String, JsonObject> parked = new ConcurrentHashMap<>();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger abortedByClient = new AtomicInteger();
  private final AtomicInteger completionRequests = new AtomicInteger();
  private volatile int prefixMatched;
  private volatile long tokenDelayMs = 2;
  private volatile boolean chunkTokenIds;
  private volatile int padding;
  private volatile boolean sawBackPressure;
  private volatile int tokenShift;
  private HttpServer server;

  public FaultInjectingFakeEngine(Vertx vertx) {
    this.vertx = vertx;
  }

  public Future<FaultInjectingFakeEngine> start() {
    server = vertx.createHttpServer().requestHandler(this::handle);
    return server.listen(0, "127.0.0.1").map(s -> this);
  }

  public Future<Void> stop() {
    return server.close();
  }

  public String url() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  /** Queues a behaviour for the next call on {@code path} ({@link #GENERATION} = completions or start_generate). */
  public FaultInjectingFakeEngine script(String path, Behavior b) {
    scripts.computeIfAbsent(path, p -> new ArrayDeque<>()).add(b);
    return this;
  }

  public FaultInjectingFakeEngine prefixMatched(int n) {
    prefixMatched = n;
    return this;
  }

  /** Name each chunk's token ids (vLLM's {@code return_token_ids}); the builtin engine does not. */
  public FaultInjectingFakeEngine chunkTokenIds(boolean on) {
    chunkTokenIds = on;
    return this;
  }

  /** Makes every token's text {@code bytes} longer (to fill buffers in back-pressure tests). */
  public FaultInjectingFakeEngine padding(int bytes) {
    padding = bytes;
    return this;
  }

  /**
   * Makes this engine's "model" differ from the others' by {@code shift} (a replay on it then
   * generates other tokens): the stand-in for an engine that is not deterministic.
   */
  public FaultInjectingFakeEngine tokenShift(int shift) {
    tokenShift = shift;
    return this;
  }

  /** True once a write of this engine found the reader's queue full (the router paused reading). */
  public boolean sawBackPressure() {
    return sawBackPressure;
  }

  public FaultInjectingFakeEngine tokenDelayMs(long ms) {
    tokenDelayMs = ms;
    return this;
  }

  public List<Received> received() {
    return Collections.unmodifiableList(new ArrayList<>(received));
  }

  public List<Received> received(String path) {
    return received.stream().filter(r -> r.path().equals(path)).toList();
  }

  public int running() {
    return running.get();
  }

  public int abortedByClient() {
    return abortedByClient.get();
  }

  public Map<String, JsonObject> parked() {
    return parked;
  }

  public int completionRequests() {
    return completionRequests.get();
  }

  private Behavior next(String key) {
    Deque<Behavior> q = scripts.get(key);
    Behavior b = q == null ? null : q.poll();
    return b == null ? Behavior.of(Behavior.Kind.NORMAL) : b;
  }

  private void handle(HttpServerRequest req) {
    req.body().onSuccess(buf -> {
      JsonObject body = buf.length() == 0 ? new JsonObject() : buf.toJsonObject();
      received.add(new Received(req.path(), body));
      HttpServerResponse resp = req.response();
      switch (req.path()) {
        case "/v1/completions" -> {
          completionRequests.incrementAndGet();
          generate(body, body.getJsonArray("prompt"), resp);
        }
        case "/microserving/prep_recv" -> {
          Behavior b = next(req.path());
          if (!failCall(b, resp)) {
            parked.put(body.getString("user"), body);
            resp.end(new JsonObject().put("kv_append_metadata", "AwAAAAAAAABbMF0=")
                .put("prefix_matched_length", prefixMatched).encode());
          }
        }
        case "/microserving/remote_send" -> {
          Behavior b = next(req.path());
          if (!failCall(b, resp)) {
            resp.end("{}");
          }
        }
        case "/microserving/start_generate" -> {
          if (next(req.path()).kind() == Behavior.Kind.EXPIRED) {
            parked.remove(body.getString("user")); // its time-to-live ran out before start_generate
          }
          JsonObject p = parked.remove(body.getString("user"));
          if (p == null) {
            resp.setStatusCode(404).end(error("No prepared request " + body.getString("user")));
            return;
          }
          generate(body, body.getJsonArray("prompt"), resp);
        }
        case "/microserving/release" -> {
          boolean had = parked.remove(body.getString("user")) != null;
          resp.end(new JsonObject().put("user", body.getString("user")).put("released", had).encode());
        }
        default -> resp.setStatusCode(404).end(error("no route"));
      }
    });
  }

  private boolean failCall(Behavior b, HttpServerResponse resp) {
    switch (b.kind()) {
      case FAIL_500 -> resp.setStatusCode(500).end("Internal Server Error");
      case BUSY_503 -> resp.setStatusCode(503).end(new JsonObject().put("error", new JsonObject()
          .put("message", "Not enough free KV cache (fake)").put("type", "server_error")
          .put("param", null).put("code", "kv_cache_full")).encode());
      case REJECT_400 -> resp.setStatusCode(400).end(error("fake engine rejects this"));
      case HANG -> { }
      default -> {
        return false;
      }
    }
    return true;
  }

  private static String error(String message) {
    return new JsonObject().put("error", new JsonObject().put("message", message)
        .put("type", "invalid_request_error").put("param", null).put("code", null)).encode();
  }

  /** The toy model: next token from the whole sequence (greedy) or from (seed, choice, step). */
  static int nextToken(List<Integer> seq, Long seed, double temperature, int choice, int step) {
    if (temperature != 0 && seed != null) {
      long h = seed * 1_000_003L + choice * 7919L + step * 104_729L;
      return (int) Math.floorMod(h ^ (h >>> 13), 50) + 10;
    }
    int n = seq.size();
    int a = seq.get(n - 1);
    int b = n > 1 ? seq.get(n - 2) : 0;
    return Math.floorMod(a * 31 + b * 17 + n, 50) + 10;
  }

  public static String text(int token) {
    return "w" + token + " ";
  }

  private void generate(JsonObject body, JsonArray prompt, HttpServerResponse resp) {
    Behavior b = next(GENERATION);
    if (failCall(b, resp)) {
      return;
    }
    int n = body.getInteger("n", 1);
    Integer maxTokens = body.getInteger("max_tokens");
    int budget = maxTokens == null ? 8 : maxTokens;
    Long seed = body.getLong("seed");
    double temperature = body.getDouble("temperature", 1.0);
    boolean logprobs = body.getValue("logprobs") != null;
    String id = body.getString("user");
    List<List<Integer>> seqs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      List<Integer> s = new ArrayList<>();
      prompt.forEach(t -> s.add(((Number) t).intValue()));
      seqs.add(s);
    }
    running.incrementAndGet();
    boolean[] ended = {false};
    resp.closeHandler(v -> {
      if (!ended[0]) {
        ended[0] = true;
        abortedByClient.incrementAndGet();
        running.decrementAndGet();
      }
    });
    resp.setChunked(true).putHeader("content-type", "text/event-stream");
    step(resp, b, id, seqs, seed, temperature, logprobs, 0, budget, ended);
  }

  private void step(HttpServerResponse resp, Behavior b, String id, List<List<Integer>> seqs,
      Long seed, double temperature, boolean logprobs, int done, int budget, boolean[] ended) {
    if (ended[0]) {
      return;
    }
    Behavior.Kind k = b.kind();
    if (done == b.afterTokens() && k != Behavior.Kind.NORMAL && k != Behavior.Kind.NO_DONE) {
      switch (k) {
        case HANG_AFTER -> { return; }
        case DROP_AFTER -> {
          finish(ended);
          resp.reset();
          return;
        }
        case GARBAGE_AFTER -> {
          resp.write("data: {this is not json\n\n");
          return;
        }
        case ERROR_EVENT_AFTER -> {
          // what an engine sends when it fails a request mid-stream (MLC: an error chunk)
          resp.write("data: {\"error\": {\"message\": \"fake engine failed mid-stream\", "
              + "\"type\": \"internal_error\", \"code\": null, \"param\": null}}\n\n");
          finish(ended);
          resp.end();
          return;
        }
        case PREEMPT_AFTER -> {
          JsonArray choices = new JsonArray();
          for (int i = 0; i < seqs.size(); i++) {
            choices.add(new JsonObject().put("index", i).put("text", "").put("logprobs", null)
                .put("finish_reason", "preempt"));
          }
          resp.write(sse(chunk(id, choices, null)));
          resp.write(sse(chunk(id, new JsonArray(), usage(0, done * seqs.size(), seqs, done))));
          finish(ended);
          resp.end("data: [DONE]\n\n");
          return;
        }
        default -> { }
      }
    }
    if (done >= budget) {
      resp.write(sse(chunk(id, new JsonArray(), usage(seqs.get(0).size() - done, done * seqs.size(),
          seqs, done))));
      finish(ended);
      resp.end(k == Behavior.Kind.NO_DONE ? "" : "data: [DONE]\n\n");
      return;
    }
    JsonArray choices = new JsonArray();
    for (int i = 0; i < seqs.size(); i++) {
      List<Integer> s = seqs.get(i);
      int t = 10 + Math.floorMod(nextToken(s, seed, temperature, i, done) - 10 + tokenShift, 50);
      s.add(t);
      JsonObject c = new JsonObject().put("index", i).put("text", text(t) + "~".repeat(padding))
          .put("logprobs", logprobs ? new JsonObject().put("text_offset", null)
              .put("token_logprobs", new JsonArray().add(-0.25 * (t % 4)))
              .put("tokens", new JsonArray().add(text(t)))
              .put("top_logprobs", new JsonArray().add(new JsonObject().put(text(t), -0.25 * (t % 4))))
              : null)
          .put("finish_reason", done + 1 == budget ? "length" : null);
      if (chunkTokenIds) {
        c.put("token_ids", new JsonArray().add(t));
      }
      choices.add(c);
    }
    resp.write(sse(chunk(id, choices, null)));
    Runnable next = () -> vertx.setTimer(Math.max(1, tokenDelayMs), x -> step(resp, b, id, seqs,
        seed, temperature, logprobs, done + 1, budget, ended));
    if (resp.writeQueueFull()) {
      sawBackPressure = true; // a well-behaved server waits for its reader
      resp.drainHandler(v -> next.run());
    } else {
      next.run();
    }
  }

  private void finish(boolean[] ended) {
    if (!ended[0]) {
      ended[0] = true;
      running.decrementAndGet();
    }
  }

  /** The usage record, with every generated token id per choice as the builtin engine's debug mode. */
  private static JsonObject usage(int prompt, int completion, List<List<Integer>> seqs, int generated) {
    JsonArray ids = new JsonArray();
    for (List<Integer> s : seqs) {
      ids.add(new JsonArray(new ArrayList<Object>(s.subList(s.size() - generated, s.size()))));
    }
    return new JsonObject().put("prompt_tokens", prompt).put("completion_tokens", completion)
        .put("total_tokens", prompt + completion)
        .put("extra", new JsonObject().put("output_token_ids", ids));
  }

  private static JsonObject chunk(String id, JsonArray choices, JsonObject usage) {
    return new JsonObject().put("id", id).put("object", "text_completion").put("created", 0)
        .put("model", null).put("choices", choices).put("usage", usage);
  }

  private static String sse(JsonObject chunk) {
    return "data: " + chunk.encode() + "\n\n";
  }

  /** The answer an uninterrupted greedy run gives for {@code prompt} (for expectations). */
  public static String expectedGreedyText(int[] prompt, int maxTokens) {
    List<Integer> s = new ArrayList<>();
    for (int t : prompt) {
      s.add(t);
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < maxTokens; i++) {
      int t = nextToken(s, null, 0, 0, i);
      s.add(t);
      sb.append(text(t));
    }
    return sb.toString();
  }

  /** The answer a seeded sampling run gives for choice {@code choice}. */
  public static String expectedSeededText(long seed, int choice, int maxTokens) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < maxTokens; i++) {
      sb.append(text(nextToken(List.of(0), seed, 1.0, choice, i)));
    }
    return sb.toString();
  }
}
