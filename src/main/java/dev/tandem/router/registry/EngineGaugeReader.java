package dev.tandem.router.registry;

import dev.tandem.router.policy.LoadGauges;
import java.util.List;
import java.util.Map;

/**
 * Finds the load gauges in an engine's {@code /metrics} samples. Builtin engines export them
 * (names below); MLC engines do not (reference §7), which yields null: the router then balances
 * on its own in-flight counters only.
 */
public final class EngineGaugeReader {

  // The builtin engine's names (engine/server/EngineMetrics); the others are common spellings.
  static final List<String> RUNNING = List.of("tandem_engine_running", "running",
      "num_running_requests");
  static final List<String> WAITING = List.of("tandem_engine_waiting", "waiting",
      "num_waiting_requests");
  static final List<String> FREE_KV = List.of("tandem_engine_kv_pages_free", "kv_pages_free");
  static final List<String> TOTAL_KV = List.of("tandem_engine_kv_pages_total", "kv_pages_total");

  private EngineGaugeReader() {}

  /** The gauges, or null when the page has no running/waiting gauges. */
  public static LoadGauges read(Map<String, Double> samples) {
    Double running = first(samples, RUNNING);
    Double waiting = first(samples, WAITING);
    if (running == null && waiting == null) {
      return null;
    }
    Double free = first(samples, FREE_KV);
    Double total = first(samples, TOTAL_KV);
    return new LoadGauges(intOf(running), intOf(waiting), free == null ? 0 : free.longValue(),
        total == null ? 0 : total.longValue());
  }

  private static Double first(Map<String, Double> samples, List<String> names) {
    for (String n : names) {
      Double v = samples.get(n);
      if (v != null) {
        return v;
      }
    }
    return null;
  }

  private static int intOf(Double v) {
    return v == null ? 0 : (int) Math.max(0, Math.round(v));
  }
}
