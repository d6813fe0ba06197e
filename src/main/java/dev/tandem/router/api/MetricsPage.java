package dev.tandem.router.api;

import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.router.metrics.RouterMetrics.EngineRow;
import dev.tandem.router.registry.EngineRegistry;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import io.vertx.micrometer.PrometheusScrapingHandler;
import java.util.ArrayList;
import java.util.List;

/**
 * The router's {@code GET /metrics}: the router's Micrometer registry in Prometheus text, after
 * the per-engine gauges were set from the engine registry — the router's in-flight count
 * ({@code tandem_inflight{engine="0",role="prefill"}}), readiness, and the gauges of each engine's
 * last fresh load report.
 */
final class MetricsPage {

  private MetricsPage() {}

  static Handler<RoutingContext> handler(EngineRegistry registry, RouterMetrics metrics) {
    Handler<RoutingContext> scrape = PrometheusScrapingHandler.create(metrics.registry());
    return ctx -> {
      metrics.showEngines(rows(registry));
      scrape.handle(ctx);
    };
  }

  static List<EngineRow> rows(EngineRegistry registry) {
    List<EngineRow> rows = new ArrayList<>();
    for (EngineStatus e : registry.statuses()) {
      rows.add(new EngineRow(e.id(), e.role().name(), e.state().name(),
          e.state() == EngineState.READY, registry.inFlight(e.id()), registry.gauges(e.id())));
    }
    return rows;
  }
}
