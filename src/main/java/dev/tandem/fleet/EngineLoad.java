package dev.tandem.fleet;

import dev.tandem.bus.LoadReport;
import io.vertx.core.json.JsonObject;

/**
 * Reads an engine's answer to {@code POST /debug/dump_engine_metrics} ({@code {"metrics": {...}}},
 * reference §7) into a {@link LoadReport}. MLC's metrics object holds cumulative counters only, so
 * its running, waiting and KV-page gauges come out absent; the builtin engine adds them as the
 * extension fields {@code running}, {@code waiting}, {@code kv_pages_free} and
 * {@code kv_pages_total}. The whole metrics object travels along in the report.
 */
final class EngineLoad {
  private EngineLoad() {}

  /**
   * @throws IllegalArgumentException when the body has no {@code metrics} object
   */
  static LoadReport fromDump(int id, int generation, long periodMs, long nowMillis,
      JsonObject body) {
    Object m = body == null ? null : body.getValue("metrics");
    if (!(m instanceof JsonObject metrics)) {
      throw new IllegalArgumentException("the answer has no \"metrics\" object");
    }
    Long running = whole(metrics, "running");
    Long waiting = whole(metrics, "waiting");
    return new LoadReport(id, generation, running == null ? null : running.intValue(),
        waiting == null ? null : waiting.intValue(), whole(metrics, "kv_pages_free"),
        whole(metrics, "kv_pages_total"), periodMs, nowMillis, metrics);
  }

  /** A non-negative whole number under {@code key}, or null when absent or not one. */
  private static Long whole(JsonObject metrics, String key) {
    Object v = metrics.getValue(key);
    if (v instanceof Number n && n.doubleValue() >= 0 && n.doubleValue() == Math.rint(n.doubleValue())
        && n.doubleValue() <= Integer.MAX_VALUE) {
      return n.longValue();
    }
    return null;
  }
}
