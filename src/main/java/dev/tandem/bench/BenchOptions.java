package dev.tandem.bench;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * One benchmark run, validated once: where to send, how requests arrive, when to stop, what is
 * warm-up, what to send and the latency objectives for goodput.
 *
 * @param concurrency closed loop: this many requests always in flight (0 for open loop)
 * @param rate open loop: Poisson arrivals per second (0 for closed loop)
 * @param requests measured requests to send (0 when {@code durationSeconds} is used)
 * @param durationSeconds how long to keep issuing measured requests (0 when {@code requests} is used)
 * @param warmupRequests leading requests excluded from the report (0 if none or by time)
 * @param warmupSeconds requests issued in this first span are excluded (0 if none or by count)
 * @param model null: take the server's first model from GET /v1/models, or omit the field
 * @param sloTtftMillis goodput limit on TTFT, NaN for none
 * @param sloTpotMillis goodput limit on time per output token, NaN for none
 * @param api the endpoint driven: completions, or chat completions (text prompts only)
 */
public record BenchOptions(String url, String model, boolean stream, boolean ignoreEos, int concurrency,
    double rate, long requests, double durationSeconds, long warmupRequests, double warmupSeconds,
    int maxConnections, long timeoutMillis, WorkloadSpec workload, double sloTtftMillis, double sloTpotMillis,
    boolean progress, BenchApi api) {

  /** A run against {@code /v1/completions}. */
  public BenchOptions(String url, String model, boolean stream, boolean ignoreEos, int concurrency,
      double rate, long requests, double durationSeconds, long warmupRequests, double warmupSeconds,
      int maxConnections, long timeoutMillis, WorkloadSpec workload, double sloTtftMillis,
      double sloTpotMillis, boolean progress) {
    this(url, model, stream, ignoreEos, concurrency, rate, requests, durationSeconds, warmupRequests,
        warmupSeconds, maxConnections, timeoutMillis, workload, sloTtftMillis, sloTpotMillis,
        progress, BenchApi.COMPLETIONS);
  }

  public static final int DEFAULT_MAX_CONNECTIONS = 1024;
  public static final long DEFAULT_TIMEOUT_MILLIS = 600_000;

  public BenchOptions {
    CompletionClient.completionsUri(url); // validates
    if ((concurrency > 0) == (rate > 0)) {
      throw new IllegalArgumentException("give exactly one of --concurrency C (closed loop) or --rate R (open loop)");
    }
    if (concurrency < 0 || rate < 0 || Double.isInfinite(rate)) {
      throw new IllegalArgumentException("--concurrency and --rate must be positive");
    }
    if ((requests > 0) == (durationSeconds > 0) || requests < 0 || durationSeconds < 0) {
      throw new IllegalArgumentException("give exactly one of --requests N or --duration SECONDS, positive");
    }
    if (warmupRequests < 0 || warmupSeconds < 0 || (warmupRequests > 0 && warmupSeconds > 0)) {
      throw new IllegalArgumentException("--warmup is a request count (N) or a time (Ns), not negative");
    }
    if (maxConnections < 1 || timeoutMillis < 1) {
      throw new IllegalArgumentException("--max-connections and --timeout must be positive");
    }
    if (sloTtftMillis <= 0 || sloTpotMillis <= 0) {
      throw new IllegalArgumentException("SLO limits must be positive milliseconds");
    }
    if (api == BenchApi.CHAT && workload.promptKind() == PromptKind.IDS) {
      throw new IllegalArgumentException("--api chat sends messages, which are text: it takes"
          + " --prompt-kind text, not ids");
    }
  }

  public boolean openLoop() {
    return rate > 0;
  }

  /** Connections the client may open: the concurrency in a closed loop, else the configured cap. */
  public int poolSize() {
    return openLoop() ? maxConnections : Math.min(concurrency, maxConnections);
  }

  public JsonObject toJson() {
    JsonArray classes = new JsonArray();
    workload.classes().forEach(c -> classes.add(new JsonObject().put("name", c.name())
        .put("prompt_len", c.promptLength().spec()).put("output_len", c.outputLength().spec())
        .put("weight", c.weight())));
    WorkloadSpec w = workload;
    return new JsonObject().put("url", url).put("model", model)
        .put("api", api.name().toLowerCase(java.util.Locale.ROOT))
        .put("stream", stream).put("ignore_eos", ignoreEos)
        .put("arrivals", openLoop() ? "poisson" : "closed")
        .put("concurrency", openLoop() ? null : concurrency).put("rate", openLoop() ? rate : null)
        .put("requests", requests > 0 ? requests : null)
        .put("duration_s", durationSeconds > 0 ? durationSeconds : null)
        .put("warmup_requests", warmupRequests).put("warmup_s", warmupSeconds)
        .put("prompt_kind", w.promptKind().name().toLowerCase(java.util.Locale.ROOT))
        .put("vocab_size", w.promptKind() == PromptKind.IDS ? w.vocabSize() : null)
        .put("shared_prefix", w.sharedPrefix() == null ? null : w.sharedPrefix().spec())
        .put("seed", w.seed()).put("classes", classes)
        .put("multi_turn", w.multiTurn() == null ? null : new JsonObject()
            .put("turns", w.multiTurn().turns()).put("think_s", w.multiTurn().thinkSeconds())
            .put("context_limit", w.multiTurn().contextLimit()))
        .put("slo_ttft_ms", Double.isNaN(sloTtftMillis) ? null : sloTtftMillis)
        .put("slo_tpot_ms", Double.isNaN(sloTpotMillis) ? null : sloTpotMillis);
  }
}
