package dev.tandem.router.api;

import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.router.policy.LoadGauges;
import dev.tandem.router.registry.EngineRegistry;
import java.util.Map;

/**
 * The router's {@code GET /metrics} page in Prometheus text format: per engine the router's
 * in-flight count ({@code tandem_inflight{engine="0"}}), readiness and the last gauges scraped
 * from it; for the router its request, response, retry, preempt and reservation counters.
 */
final class MetricsPage {

  private MetricsPage() {}

  static String render(EngineRegistry registry, RouterMetrics metrics) {
    StringBuilder sb = new StringBuilder(2048);
    header(sb, "tandem_inflight", "gauge", "Requests in flight on each engine, counted by the router.");
    for (EngineStatus e : registry.statuses()) {
      sb.append("tandem_inflight{engine=\"").append(e.id()).append("\",role=\"")
          .append(e.role().name().toLowerCase()).append("\"} ").append(registry.inFlight(e.id())).append('\n');
    }
    header(sb, "tandem_engine_ready", "gauge", "1 if the engine is READY (in rotation).");
    for (EngineStatus e : registry.statuses()) {
      sb.append("tandem_engine_ready{engine=\"").append(e.id()).append("\",state=\"")
          .append(e.state().name()).append("\"} ").append(e.state() == EngineState.READY ? 1 : 0).append('\n');
    }
    header(sb, "tandem_engine_gauge", "gauge", "Last fresh gauges scraped from each engine's /metrics.");
    for (EngineStatus e : registry.statuses()) {
      LoadGauges g = registry.gauges(e.id());
      if (g != null) {
        gauge(sb, e.id(), "running", g.running());
        gauge(sb, e.id(), "waiting", g.waiting());
        gauge(sb, e.id(), "kv_free_pages", g.freeKvPages());
        gauge(sb, e.id(), "kv_total_pages", g.totalKvPages());
      }
    }
    counter(sb, "tandem_router_requests_total", "Completion requests received.", metrics.requests());
    header(sb, "tandem_router_responses_total", "counter",
        "Completion requests ended, by the status the client saw (499: client went away).");
    for (Map.Entry<Integer, Long> e : metrics.responsesByStatus().entrySet()) {
      sb.append("tandem_router_responses_total{status=\"").append(e.getKey()).append("\"} ")
          .append(e.getValue()).append('\n');
    }
    long errors = metrics.responsesByStatus().entrySet().stream()
        .filter(e -> e.getKey() >= 400).mapToLong(Map.Entry::getValue).sum();
    counter(sb, "tandem_router_errors_total", "Completion requests that ended in an error.", errors);
    counter(sb, "tandem_router_engine_retries_total", "Attempts moved to another engine after a failure.",
        metrics.engineRetries());
    counter(sb, "tandem_router_preempt_resumes_total", "Choices resumed after a preempt or interruption.",
        metrics.preemptResumes());
    header(sb, "tandem_router_resume_attempts_total", "counter",
        "Attempts that resumed choices: continued from the delivered tokens, or replayed.");
    sb.append("tandem_router_resume_attempts_total{how=\"continue\"} ")
        .append(metrics.resumeAttemptsContinued()).append('\n');
    sb.append("tandem_router_resume_attempts_total{how=\"replay\"} ")
        .append(metrics.resumeAttemptsReplayed()).append('\n');
    counter(sb, "tandem_router_clients_gone_total", "Requests whose client went away.", metrics.clientsGone());
    header(sb, "tandem_reservations_open", "gauge", "KV reservations made by prep_recv not yet claimed or released.");
    sb.append("tandem_reservations_open ").append(metrics.reservationsOpen()).append('\n');
    counter(sb, "tandem_reservations_released_total", "Reservations released explicitly.",
        metrics.reservationsReleased());
    counter(sb, "tandem_reservation_release_failures_total", "Release calls that failed (the engine's TTL frees them).",
        metrics.releaseFailures());
    return sb.toString();
  }

  private static void gauge(StringBuilder sb, int engine, String name, long value) {
    sb.append("tandem_engine_gauge{engine=\"").append(engine).append("\",name=\"").append(name)
        .append("\"} ").append(value).append('\n');
  }

  private static void counter(StringBuilder sb, String name, String help, long value) {
    header(sb, name, "counter", help);
    sb.append(name).append(' ').append(value).append('\n');
  }

  private static void header(StringBuilder sb, String name, String type, String help) {
    sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
    sb.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }
}
