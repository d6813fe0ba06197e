package dev.tandem.bench;

import java.util.Locale;
import java.util.Map;

/** Formats a {@link BenchReport} as a plain-text table for the console. */
public final class ConsoleReport {

  private ConsoleReport() {
  }

  public static String format(BenchReport report) {
    BenchOptions o = report.options();
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "tandem bench  %s  %s  %s%n",
        CompletionClient.endpointUri(o.url(), o.api()),
        o.openLoop() ? "poisson " + num(o.rate()) + " req/s" : "concurrency " + o.concurrency(),
        o.stream() ? "streaming" : "non-streaming"));
    MultiTurn mt = o.workload().multiTurn();
    sb.append(String.format(Locale.ROOT, "workload: %s prompts, seed %d, %s%s%s%n",
        o.workload().promptKind().name().toLowerCase(Locale.ROOT), o.workload().seed(),
        String.join(" + ", o.workload().classes().stream().map(WorkloadClass::spec).toList()),
        o.workload().sharedPrefix() == null ? "" : ", shared prefix " + o.workload().sharedPrefix().spec(),
        mt == null ? "" : ", conversations of up to " + mt.turns() + " turns"));
    GroupStats all = report.overall();
    sb.append(String.format(Locale.ROOT, "measured %.2fs (run %.2fs, %d warm-up requests excluded)%n%n",
        all.windowSeconds(), report.runSeconds(), report.warmupRequests()));
    sb.append(String.format(Locale.ROOT, "%-10s %6s %6s %9s %12s   %-8s %9s %9s %9s %9s %9s%n", "class", "reqs",
        "errors", "req/s", "out tok/s", "metric", "mean", "p50", "p90", "p99", "max"));
    row(sb, "all", all);
    for (Map.Entry<String, GroupStats> e : report.classes().entrySet()) {
      row(sb, e.getKey(), e.getValue());
    }
    sb.append("(latencies in ms; tpot = (e2e - ttft) / (output tokens - 1)");
    if (all.outsideEngineE2e().count() > 0) {
      sb.append("; * = minus the engine's own time from usage.extra: time outside the engine");
    }
    sb.append(")\n");
    if (!all.errorsByKind().isEmpty()) {
      sb.append("errors:\n");
      all.errorsByKind().forEach((k, v) -> sb.append(String.format(Locale.ROOT, "  %-18s %6d  e.g. %s%n", k, v,
          all.errorExamples().get(k))));
    }
    if (all.withinSlo() >= 0) {
      sb.append(String.format(Locale.ROOT, "goodput (ttft <= %s ms, tpot <= %s ms): %s req/s, %d of %d requests%n",
          num(all.sloTtftMillis()), num(all.sloTpotMillis()), num(all.goodputPerSecond()), all.withinSlo(),
          all.requests()));
    }
    if (all.shortOutputs() > 0) {
      sb.append(String.format(Locale.ROOT,
          "note: %d answers were shorter than max_tokens (the server did not honour ignore_eos)%n", all.shortOutputs()));
    }
    if (all.ok() > 0 && !all.tokensFromUsage()) {
      sb.append("note: the server sent no usage record; output tokens were counted as text chunks\n");
    }
    return sb.toString();
  }

  private static void row(StringBuilder sb, String name, GroupStats g) {
    String[] metrics = {"ttft", "tpot", "e2e", "ttft*", "e2e*"};
    LatencySummary[] values = {g.ttft(), g.tpot(), g.e2e(), g.outsideEngineTtft(), g.outsideEngineE2e()};
    boolean first = true;
    for (int i = 0; i < metrics.length; i++) {
      LatencySummary s = values[i];
      if (s.count() == 0 && i != 2) {
        continue;
      }
      if (first) {
        sb.append(String.format(Locale.ROOT, "%-10s %6d %6d %9s %12s   ", name, g.requests(), g.errors(),
            num(g.requestsPerSecond()), num(g.outputTokensPerSecond())));
      } else {
        sb.append(String.format(Locale.ROOT, "%-10s %6s %6s %9s %12s   ", "", "", "", "", ""));
      }
      first = false;
      sb.append(String.format(Locale.ROOT, "%-8s %9s %9s %9s %9s %9s%n", metrics[i], num(s.mean()), num(s.p50()),
          num(s.p90()), num(s.p99()), num(s.max())));
    }
  }

  static String num(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    double a = Math.abs(v);
    return String.format(Locale.ROOT, a >= 100 ? "%.1f" : a >= 10 ? "%.2f" : "%.3f", v);
  }
}
