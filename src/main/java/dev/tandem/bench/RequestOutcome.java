package dev.tandem.bench;

import io.vertx.core.json.JsonObject;

/**
 * What happened to one request. Times are {@link System#nanoTime()} values taken on the client's
 * event loop: {@code start} when the request was issued (connection-pool wait included, so an open
 * loop's queueing counts), {@code firstToken} when the first chunk carrying text arrived (0 if none),
 * {@code end} when the response ended.
 *
 * @param promptTokens from the server's usage record, -1 if it sent none
 * @param outputTokens from usage when {@code outputTokensFromUsage}, else counted text chunks
 * @param errorKind null for success, else a short kind such as {@code http_503} or {@code stream_cut}
 * @param engineTtftMillis the engine's own TTFT from {@code usage.extra.ttft_s}, NaN if not sent
 * @param engineE2eMillis the engine's own latency from {@code usage.extra.end_to_end_latency_s}, NaN if not sent
 */
public record RequestOutcome(long index, String className, boolean warmup, int maxTokens,
    long startNanos, long firstTokenNanos, long endNanos, int promptTokens, int outputTokens,
    boolean outputTokensFromUsage, String errorKind, String errorMessage, double engineTtftMillis,
    double engineE2eMillis) {

  /** An outcome without engine-reported timings. */
  public RequestOutcome(long index, String className, boolean warmup, int maxTokens, long startNanos,
      long firstTokenNanos, long endNanos, int promptTokens, int outputTokens, boolean outputTokensFromUsage,
      String errorKind, String errorMessage) {
    this(index, className, warmup, maxTokens, startNanos, firstTokenNanos, endNanos, promptTokens, outputTokens,
        outputTokensFromUsage, errorKind, errorMessage, Double.NaN, Double.NaN);
  }

  public boolean ok() {
    return errorKind == null;
  }

  public double e2eMillis() {
    return (endNanos - startNanos) / 1e6;
  }

  /** Time to first token in ms, NaN when no chunk with text arrived (non-streaming, errors). */
  public double ttftMillis() {
    return firstTokenNanos == 0 ? Double.NaN : (firstTokenNanos - startNanos) / 1e6;
  }

  /**
   * Latency spent outside the engine's own clock: client e2e minus the engine-reported e2e (the
   * network hops, any proxy or router, HTTP handling). Subtracting the engine's time per request
   * removes its variance, so proxies can be compared far more precisely than by raw latencies.
   */
  public double outsideEngineE2eMillis() {
    return e2eMillis() - engineE2eMillis;
  }

  /** Client TTFT minus the engine-reported TTFT; NaN when either is missing. */
  public double outsideEngineTtftMillis() {
    return ttftMillis() - engineTtftMillis;
  }

  /** Time per output token after the first, ms: (e2e - ttft) / (tokens - 1); NaN if undefined. */
  public double tpotMillis() {
    if (firstTokenNanos == 0 || outputTokens < 2) {
      return Double.NaN;
    }
    return (endNanos - firstTokenNanos) / 1e6 / (outputTokens - 1);
  }

  /** This outcome as one JSON object; times in ms, {@code start_ms} from {@code runStartNanos}. */
  public JsonObject toJson(long runStartNanos) {
    return new JsonObject().put("index", index).put("class", className)
        .put("ok", ok()).put("error", errorKind).put("start_ms", round((startNanos - runStartNanos) / 1e6))
        .put("ttft_ms", round(ttftMillis())).put("tpot_ms", round(tpotMillis()))
        .put("e2e_ms", round(e2eMillis())).put("prompt_tokens", promptTokens)
        .put("output_tokens", outputTokens).put("max_tokens", maxTokens);
  }

  private static Double round(double v) {
    return Double.isNaN(v) ? null : Math.round(v * 1000) / 1000.0;
  }
}
