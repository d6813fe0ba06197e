package dev.tandem.bench;

import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Statistics of a group of measured requests (the whole run, or one class of a mix) over the
 * run's measured window. Latencies cover successful requests only; TTFT and TPOT exist only for
 * streams. Goodput counts successful requests within every given limit.
 *
 * @param shortOutputs successful requests with fewer tokens than {@code max_tokens} (EOS was not ignored)
 * @param withinSlo successful requests meeting the SLOs; -1 when no SLO was given
 */
public record GroupStats(int requests, int ok, Map<String, Integer> errorsByKind,
    Map<String, String> errorExamples, int shortOutputs, long promptTokens, long outputTokens,
    boolean tokensFromUsage, double windowSeconds, LatencySummary ttft, LatencySummary tpot,
    LatencySummary e2e, double sloTtftMillis, double sloTpotMillis, int withinSlo,
    LatencySummary outsideEngineTtft, LatencySummary outsideEngineE2e) {

  public static GroupStats of(List<RequestOutcome> measured, double windowSeconds, double sloTtftMillis,
      double sloTpotMillis) {
    Map<String, Integer> errors = new TreeMap<>();
    Map<String, String> examples = new TreeMap<>();
    int ok = 0;
    int shortOutputs = 0;
    long prompt = 0;
    long output = 0;
    boolean fromUsage = true;
    boolean slo = !Double.isNaN(sloTtftMillis) || !Double.isNaN(sloTpotMillis);
    int within = 0;
    double[] ttft = new double[measured.size()];
    double[] tpot = new double[measured.size()];
    double[] e2e = new double[measured.size()];
    double[] outTtft = new double[measured.size()];
    double[] outE2e = new double[measured.size()];
    int nTtft = 0;
    int nTpot = 0;
    int nOutTtft = 0;
    int nOutE2e = 0;
    for (RequestOutcome o : measured) {
      if (!o.ok()) {
        errors.merge(o.errorKind(), 1, Integer::sum);
        examples.putIfAbsent(o.errorKind(), o.errorMessage());
        continue;
      }
      e2e[ok++] = o.e2eMillis();
      output += o.outputTokens();
      prompt += Math.max(0, o.promptTokens());
      fromUsage &= o.outputTokensFromUsage();
      if (o.outputTokens() < o.maxTokens()) {
        shortOutputs++;
      }
      double t = o.ttftMillis();
      double p = o.tpotMillis();
      if (!Double.isNaN(t)) {
        ttft[nTtft++] = t;
      }
      if (!Double.isNaN(p)) {
        tpot[nTpot++] = p;
      }
      if (!Double.isNaN(o.outsideEngineTtftMillis())) {
        outTtft[nOutTtft++] = o.outsideEngineTtftMillis();
      }
      if (!Double.isNaN(o.outsideEngineE2eMillis())) {
        outE2e[nOutE2e++] = o.outsideEngineE2eMillis();
      }
      // A missing measurement fails its limit: a request without TTFT cannot prove it met one.
      boolean meets = (Double.isNaN(sloTtftMillis) || t <= sloTtftMillis)
          && (Double.isNaN(sloTpotMillis) || o.outputTokens() < 2 || p <= sloTpotMillis);
      if (slo && meets) {
        within++;
      }
    }
    return new GroupStats(measured.size(), ok, errors, examples, shortOutputs, prompt, output, fromUsage && ok > 0,
        windowSeconds, LatencySummary.of(java.util.Arrays.copyOf(ttft, nTtft)),
        LatencySummary.of(java.util.Arrays.copyOf(tpot, nTpot)), LatencySummary.of(java.util.Arrays.copyOf(e2e, ok)),
        sloTtftMillis, sloTpotMillis, slo ? within : -1, LatencySummary.of(java.util.Arrays.copyOf(outTtft, nOutTtft)),
        LatencySummary.of(java.util.Arrays.copyOf(outE2e, nOutE2e)));
  }

  public int errors() {
    return requests - ok;
  }

  public double requestsPerSecond() {
    return rate(ok);
  }

  public double outputTokensPerSecond() {
    return rate(outputTokens);
  }

  public double promptTokensPerSecond() {
    return rate(promptTokens);
  }

  /** Successful requests within the SLOs per second; NaN when no SLO was given. */
  public double goodputPerSecond() {
    return withinSlo < 0 ? Double.NaN : rate(withinSlo);
  }

  private double rate(double count) {
    return windowSeconds > 0 ? count / windowSeconds : Double.NaN;
  }

  public JsonObject toJson() {
    JsonObject errs = new JsonObject();
    errorsByKind.forEach(errs::put);
    JsonObject ex = new JsonObject();
    errorExamples.forEach(ex::put);
    JsonObject goodput = null;
    if (withinSlo >= 0) {
      goodput = new JsonObject().put("slo_ttft_ms", nanToNull(sloTtftMillis)).put("slo_tpot_ms", nanToNull(sloTpotMillis))
          .put("ok_within_slo", withinSlo).put("req_per_s", round(goodputPerSecond()))
          .put("fraction", requests == 0 ? null : round((double) withinSlo / requests));
    }
    return new JsonObject().put("requests", requests).put("ok", ok).put("errors", errors())
        .put("errors_by_kind", errs).put("error_examples", ex).put("short_outputs", shortOutputs)
        .put("prompt_tokens", promptTokens).put("output_tokens", outputTokens)
        .put("output_tokens_from_usage", tokensFromUsage)
        .put("req_per_s", round(requestsPerSecond())).put("output_tok_per_s", round(outputTokensPerSecond()))
        .put("prompt_tok_per_s", round(promptTokensPerSecond()))
        .put("ttft_ms", ttft.toJson()).put("tpot_ms", tpot.toJson()).put("e2e_ms", e2e.toJson())
        .put("goodput", goodput)
        .put("outside_engine_ms", outsideEngineE2e.count() == 0 ? null : new JsonObject()
            .put("ttft", outsideEngineTtft.toJson()).put("e2e", outsideEngineE2e.toJson()));
  }

  private static Double nanToNull(double v) {
    return Double.isNaN(v) ? null : v;
  }

  private static Double round(double v) {
    return Double.isNaN(v) ? null : Math.round(v * 1000) / 1000.0;
  }
}
