package dev.tandem.bench;

import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The result of a run: statistics of all measured requests and, for a mix, of each class; its JSON
 * form is what {@code --json FILE} writes (format version {@value #FORMAT_VERSION}).
 */
public record BenchReport(BenchOptions options, Instant startedAt, double runSeconds, GroupStats overall,
    Map<String, GroupStats> classes, long warmupRequests, List<RequestOutcome> measured, long runStartNanos) {

  public static final int FORMAT_VERSION = 1;

  public static BenchReport of(BenchOptions options, Instant startedAt, RunRecord record) {
    List<RequestOutcome> measured = record.outcomes().stream().filter(o -> !o.warmup()).toList();
    double window = record.measuredSeconds();
    GroupStats overall = GroupStats.of(measured, window, options.sloTtftMillis(), options.sloTpotMillis());
    Map<String, GroupStats> classes = new LinkedHashMap<>();
    if (options.workload().isMix()) {
      for (WorkloadClass c : options.workload().classes()) {
        List<RequestOutcome> mine = measured.stream().filter(o -> o.className().equals(c.name())).toList();
        classes.put(c.name(), GroupStats.of(mine, window, options.sloTtftMillis(), options.sloTpotMillis()));
      }
    }
    return new BenchReport(options, startedAt, (record.runEndNanos() - record.runStartNanos()) / 1e9, overall,
        classes, record.outcomes().size() - measured.size(), measured, record.runStartNanos());
  }

  /**
   * One JSON object per measured request, one per line (what {@code --requests-json FILE} writes):
   * enough to compute goodput for any SLO afterwards, or latency over time.
   */
  public String requestLines() {
    StringBuilder out = new StringBuilder();
    for (RequestOutcome o : measured) {
      out.append(o.toJson(runStartNanos).encode()).append('\n');
    }
    return out.toString();
  }

  public JsonObject toJson() {
    JsonObject cls = new JsonObject();
    classes.forEach((k, v) -> cls.put(k, v.toJson()));
    return new JsonObject().put("tandem_bench", FORMAT_VERSION).put("started_at", startedAt.toString())
        .put("options", options.toJson()).put("run_s", Math.round(runSeconds * 1000) / 1000.0)
        .put("measured_s", Math.round(overall.windowSeconds() * 1000) / 1000.0)
        .put("warmup_requests_done", warmupRequests).put("overall", overall.toJson())
        .put("classes", classes.isEmpty() ? null : cls);
  }
}
