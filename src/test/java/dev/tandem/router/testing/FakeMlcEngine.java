package dev.tandem.router.testing;

import dev.tandem.kv.KvAppendMetadata;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A FAKE MLC-LLM engine server, for router tests ONLY: MLC engines never run on these machines,
 * so this one behaves as the reference (mlc-microserving-protocol.md §3, §4, §6) says they do,
 * where the builtin engine is kinder:
 *
 * <ul>
 *   <li>{@code prep_recv} parks the request under its {@code user} with its KV pages; there is no
 *       release endpoint (404) and no time-to-live: only {@code start_generate} claims it;
 *   <li>{@code start_generate} runs with the sampling parameters of the prep_recv body (its own
 *       {@code max_tokens} is ignored), and a client disconnect aborts a running request (or one
 *       parked after its client left) and frees its pages;
 *   <li>a call with a window MLC checks fatally (prep_recv {@code end} outside {@code [0, len)},
 *       remote_send with {@code begin >= end} or a slot count other than {@code end - begin},
 *       start_generate without a parked request) kills the engine's background loop: every later
 *       call hangs, while {@code /v1/models} still answers;
 *   <li>chunks name no token ids and the usage record has no {@code output_token_ids}.
 * </ul>
 *
 * Tests read {@link #parked()}, {@link #usedPages()}, {@link #fatal()} and what it received. Text
 * comes from the same toy model as {@link FaultInjectingFakeEngine}'s (greedy: a function of the
 * whole sequence), one token per chunk.
 */
public final class FakeMlcEngine {

  public static final int PAGE = 16;

  /**
   * What the next call on a path does instead of its normal answer. A generation that hangs has
   * taken its request (and pages) and sends nothing; other calls that hang never answer.
   */
  public enum Fault { FAIL_500, HANG, DROP_AFTER }

  private record Scripted(Fault fault, int afterTokens) {}

  private record Parked(JsonObject body, int pages) {}

  private final Vertx vertx;
  private final Map<String, Parked> parked = new ConcurrentHashMap<>();
  private final Map<String, Scripted> scripts = new ConcurrentHashMap<>();
  private final List<FaultInjectingFakeEngine.Received> received = new CopyOnWriteArrayList<>();
  private final List<String> fatal = new CopyOnWriteArrayList<>();
  private final AtomicInteger usedPages = new AtomicInteger();
  private final AtomicInteger running = new AtomicInteger();
  private volatile int prefixMatched;
  private volatile int extraSlots;
  private volatile long callDelayMs = 5;
  private volatile Runnable afterPrepRecv = () -> { };
  private HttpServer server;

  public FakeMlcEngine(Vertx vertx) {
    this.vertx = vertx;
  }

  public Future<FakeMlcEngine> start() {
    server = vertx.createHttpServer().requestHandler(this::handle);
    return server.listen(0, "127.0.0.1").map(s -> this);
  }

  /** Stops listening and drops every connection: the engine process died. */
  public Future<Void> stop() {
    return server.close();
  }

  public String url() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  /** The next call on {@code path} fails as {@code fault} says (after {@code tokens} for drops). */
  public FakeMlcEngine script(String path, Fault fault, int tokens) {
    scripts.put(path, new Scripted(fault, tokens));
    return this;
  }

  public FakeMlcEngine prefixMatched(int n) {
    prefixMatched = n;
    return this;
  }

  /** Makes prep_recv's metadata name {@code n} slots more than the window (an engine bug). */
  public FakeMlcEngine extraSlots(int n) {
    extraSlots = n;
    return this;
  }

  /** How long prep_recv and remote_send take. */
  public FakeMlcEngine callDelayMs(long ms) {
    callDelayMs = ms;
    return this;
  }

  /** Runs once prep_recv has answered (e.g. to kill the prefill engine between the calls). */
  public FakeMlcEngine afterPrepRecv(Runnable hook) {
    afterPrepRecv = hook;
    return this;
  }

  /** Parked requests by id. */
  public Map<String, ?> parked() {
    return Collections.unmodifiableMap(parked);
  }

  /** KV pages held by parked and running requests. */
  public int usedPages() {
    return usedPages.get();
  }

  public int running() {
    return running.get();
  }

  /** Every fatal check a call tripped (each one killed the background loop). */
  public List<String> fatal() {
    return List.copyOf(fatal);
  }

  public List<FaultInjectingFakeEngine.Received> received(String path) {
    return received.stream().filter(r -> r.path().equals(path)).toList();
  }

  private void handle(HttpServerRequest req) {
    req.body().onSuccess(buf -> {
      JsonObject body = buf.length() == 0 ? new JsonObject() : buf.toJsonObject();
      received.add(new FaultInjectingFakeEngine.Received(req.path(), body));
      HttpServerResponse resp = req.response();
      if (req.path().equals("/v1/models")) {
        resp.end(new JsonObject().put("object", "list").put("data", new JsonArray()
            .add(new JsonObject().put("id", "fake-mlc").put("object", "model"))).encode());
        return;
      }
      if (!fatal.isEmpty()) {
        return; // the background loop is dead: the call waits forever
      }
      Scripted fault = scripts.remove(req.path());
      if (fault != null && fault.fault() == Fault.FAIL_500) {
        resp.setStatusCode(500).end("Internal Server Error");
        return;
      }
      boolean generation = req.path().equals("/v1/completions")
          || req.path().equals("/microserving/start_generate");
      if (fault != null && fault.fault() == Fault.HANG && !generation) {
        return; // never answers; a generation hangs after taking the request (below)
      }
      switch (req.path()) {
        case "/v1/completions" -> generate(body, body, resp, fault);
        case "/microserving/prep_recv" -> prepRecv(body, resp);
        case "/microserving/remote_send" -> remoteSend(body, resp);
        case "/microserving/start_generate" -> startGenerate(body, resp, fault);
        default -> resp.setStatusCode(404).end("{\"detail\":\"Not Found\"}");
      }
    });
  }

  private boolean die(String why) {
    fatal.add(why);
    return true;
  }

  private static int normalised(int index, int length) {
    return index < 0 ? length + index : index;
  }

  private void prepRecv(JsonObject body, HttpServerResponse resp) {
    if (body.getValue("debug_config") == null) {
      resp.setStatusCode(500).end("Internal Server Error"); // MLC's handler crashes on null
      return;
    }
    String id = body.getString("user");
    int length = body.getJsonArray("prompt").size();
    int end = normalised(body.getInteger("end"), length);
    if ((end < 0 || end >= length) && die("prep_recv end " + end + " outside [0, " + length + ")")) {
      return;
    }
    if (parked.containsKey(id)) {
      resp.setStatusCode(500).end("Internal Server Error"); // request id already exists
      return;
    }
    vertx.setTimer(Math.max(1, callDelayMs), t -> {
      int pages = (length + PAGE - 1) / PAGE;
      if (resp.closed()) {
        return; // parked, then aborted at once: its client is gone
      }
      usedPages.addAndGet(pages);
      parked.put(id, new Parked(body, pages));
      int matched = Math.min(prefixMatched, end);
      int[] slots = new int[Math.max(0, end - matched + extraSlots)];
      for (int i = 0; i < slots.length; i++) {
        slots[i] = 1000 + i;
      }
      resp.end(new JsonObject().put("kv_append_metadata", KvAppendMetadata.encode(slots))
          .put("prefix_matched_length", matched).encode());
      afterPrepRecv.run();
    });
  }

  private void remoteSend(JsonObject body, HttpServerResponse resp) {
    int length = body.getJsonArray("prompt").size();
    int begin = body.getInteger("begin");
    int end = normalised(body.getInteger("end"), length);
    int slots = KvAppendMetadata.decode(body.getString("kv_addr_info")).length;
    if ((begin < 0 || end >= length || begin >= end) && die("remote_send window [" + begin + ", "
        + end + ") of a " + length + "-token prompt")) {
      return;
    }
    if (slots != end - begin && die("remote_send: " + slots + " slots for [" + begin + ", " + end + ")")) {
      return;
    }
    vertx.setTimer(Math.max(1, callDelayMs), t -> {
      if (!resp.closed()) {
        resp.end("{}");
      }
    });
  }

  private void startGenerate(JsonObject body, HttpServerResponse resp, Scripted fault) {
    String id = body.getString("user");
    Parked p = parked.remove(id);
    if (p == null && die("start_generate for " + id + " without a parked request")) {
      return;
    }
    int length = p.body().getJsonArray("prompt").size();
    int begin = normalised(body.getInteger("begin"), length);
    if ((begin < 0 || begin >= length) && die("start_generate begin " + begin + " outside [0, "
        + length + ")")) {
      return;
    }
    usedPages.addAndGet(-p.pages());
    generate(p.body(), body, resp, fault); // the parked request's sampling parameters
  }

  /**
   * Streams the answer of {@code sampling} (prompt, max_tokens, seed) shaped as {@code shape}
   * asks (stream options); the request holds pages for its tokens until it ends or its client
   * goes away.
   */
  private void generate(JsonObject sampling, JsonObject shape, HttpServerResponse resp,
      Scripted fault) {
    List<Integer> seq = new ArrayList<>();
    sampling.getJsonArray("prompt").forEach(t -> seq.add(((Number) t).intValue()));
    Integer max = sampling.getInteger("max_tokens");
    int budget = max == null ? 8 : max;
    Long seed = sampling.getLong("seed");
    double temperature = sampling.getDouble("temperature", 1.0);
    int[] pages = {(seq.size() + PAGE - 1) / PAGE};
    usedPages.addAndGet(pages[0]);
    running.incrementAndGet();
    boolean[] ended = {false};
    Runnable free = () -> {
      if (!ended[0]) {
        ended[0] = true;
        usedPages.addAndGet(-pages[0]);
        running.decrementAndGet();
      }
    };
    resp.closeHandler(v -> free.run()); // abort on disconnect
    resp.setChunked(true).putHeader("content-type", "text/event-stream");
    String id = shape.getString("user");
    int prompt = seq.size();
    step(resp, id, seq, seed, temperature, 0, budget, pages, free, ended, fault,
        shape.getJsonObject("stream_options", new JsonObject()).getBoolean("include_usage", false),
        prompt);
  }

  private void step(HttpServerResponse resp, String id, List<Integer> seq, Long seed,
      double temperature, int done, int budget, int[] pages, Runnable free, boolean[] ended,
      Scripted fault, boolean usage, int prompt) {
    if (ended[0]) {
      return;
    }
    if (fault != null && fault.fault() == Fault.HANG) {
      return; // holds its pages until the client goes away
    }
    if (fault != null && fault.fault() == Fault.DROP_AFTER && done == fault.afterTokens()) {
      free.run();
      resp.reset();
      return;
    }
    if (done >= budget) {
      if (usage) {
        resp.write(sse(chunk(id, new JsonArray(), new JsonObject().put("prompt_tokens", prompt)
            .put("completion_tokens", done).put("total_tokens", prompt + done)
            .put("extra", new JsonObject().put("ttft_s", 0.01)))));
      }
      free.run();
      resp.end("data: [DONE]\n\n");
      return;
    }
    int t = FaultInjectingFakeEngine.nextToken(seq, seed, temperature, 0, done);
    seq.add(t);
    int need = (seq.size() + PAGE - 1) / PAGE;
    usedPages.addAndGet(need - pages[0]);
    pages[0] = need;
    resp.write(sse(chunk(id, new JsonArray().add(new JsonObject().put("index", 0)
        .put("text", FaultInjectingFakeEngine.text(t)).put("logprobs", null)
        .put("finish_reason", done + 1 == budget ? "length" : null)), null)));
    vertx.setTimer(2, x -> step(resp, id, seq, seed, temperature, done + 1, budget, pages, free,
        ended, fault, usage, prompt));
  }

  private static JsonObject chunk(String id, JsonArray choices, JsonObject usage) {
    return new JsonObject().put("id", id).put("choices", choices).put("created", 0)
        .put("model", null).put("object", "text_completion").put("usage", usage);
  }

  private static String sse(JsonObject chunk) {
    return "data: " + chunk.encode() + "\n\n";
  }
}
