package dev.tandem.engine.server;

import dev.tandem.engine.model.CoreBudget;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.engine.sched.EngineCounters;
import dev.tandem.engine.sched.EngineStats;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The builtin engine's /metrics page keeps the names (and types) of its hand-written days. */
class EngineMetricsTest {

  @Test
  void everyMetricKeepsItsNameTypeAndValue() {
    EngineCounters c = new EngineCounters();
    c.requestsSubmitted.set(5);
    c.prefillNanos.set(1_500_000_000L);
    EngineMetrics m = new EngineMetrics(() -> new EngineStats(2, 7, 1, 90, 128, 4, 12.5, c),
        CoreBudget.devices(0, 1));
    m.route("/v1/completions").increment();
    m.route("/v1/completions").increment();
    m.route("/microserving/prep_recv").increment();
    String page = m.registry().scrape();

    for (String gauge : List.of("running", "waiting", "parked", "kv_pages_free", "kv_pages_cached",
        "tokens_per_second")) {
      assertTrue(page.contains("# TYPE tandem_engine_" + gauge + " gauge"), gauge + "\n" + page);
    }
    for (String counter : List.of("kv_pages_total", "requests_received_total", "http_requests_total",
        "requests_submitted_total", "requests_finished_total", "requests_aborted_total",
        "requests_failed_total", "prompt_tokens_total", "prefill_tokens_total",
        "decode_tokens_total", "completion_tokens_total", "prefix_cache_hit_tokens_total",
        "preemptions_total", "prep_recv_total", "remote_send_total", "start_generate_total",
        "parked_expired_total", "parked_released_total", "kv_received_tokens_total",
        "kv_sent_tokens_total", "kv_transfers_rejected_total", "steps_total",
        "prefill_seconds_total", "decode_seconds_total")) {
      assertTrue(page.contains("# TYPE tandem_engine_" + counter + " counter"), counter + "\n" + page);
    }
    assertEquals(7, HttpJson.metric(page, "tandem_engine_waiting"));
    assertEquals(128, HttpJson.metric(page, "tandem_engine_kv_pages_total"));
    assertEquals(12.5, HttpJson.metric(page, "tandem_engine_tokens_per_second"));
    assertEquals(5, HttpJson.metric(page, "tandem_engine_requests_submitted_total"));
    assertEquals(1.5, HttpJson.metric(page, "tandem_engine_prefill_seconds_total"));
    assertEquals(3, HttpJson.metric(page, "tandem_engine_requests_received_total"));
    assertEquals(2, HttpJson.metric(page, "tandem_engine_http_requests_total{route=\"/v1/completions\"}"));
  }

  @Test
  void theDebugDumpCarriesTheLoadAnEngineVerticleReports() {
    EngineMetrics m = new EngineMetrics(() -> new EngineStats(2, 7, 0, 90, 128, 4, 0,
        new EngineCounters()), CoreBudget.devices(0, 1));
    var metrics = m.mlcMetrics().getJsonObject("metrics");
    assertEquals(2, metrics.getInteger("running"));
    assertEquals(7, metrics.getInteger("waiting"));
    assertEquals(90, metrics.getInteger("kv_pages_free"));
    assertEquals(128, metrics.getInteger("kv_pages_total"));
    assertEquals(0, metrics.getInteger("prompt_tokens_sum"));
  }
}
