package dev.tandem.router.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.router.policy.LoadGauges;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PrometheusTextTest {

  @Test
  void readsPrometheusAndMlcSampleLines() {
    String page = """
        # HELP tandem_engine_running_requests Requests decoding now.
        # TYPE tandem_engine_running_requests gauge
        tandem_engine_running_requests 3
        tandem_engine_waiting_requests 2 1700000000000
        tandem_engine_kv_free_pages 40
        tandem_engine_kv_total_pages{model="tiny"} 64
        http_requests_total{path="/v1/completions",code="200"} 12
        prompt_tokens_sum\t1234.0
        decode_time_by_batch_size_mean{batch_size=4}\t0.011
        garbage line here
        """;
    Map<String, Double> s = PrometheusText.parse(page);
    assertEquals(3.0, s.get("tandem_engine_running_requests"));
    assertEquals(2.0, s.get("tandem_engine_waiting_requests"));
    assertEquals(64.0, s.get("tandem_engine_kv_total_pages{model=\"tiny\"}"));
    assertEquals(12.0, s.get("http_requests_total{path=\"/v1/completions\",code=\"200\"}"));
    assertEquals(1234.0, s.get("prompt_tokens_sum"));
    assertEquals(0.011, s.get("decode_time_by_batch_size_mean{batch_size=4}"));
    assertNull(s.get("garbage"));
  }

  @Test
  void gaugeReaderFindsLoadOrReportsNone() {
    // the builtin engine's page (engine/server/EngineMetrics)
    Map<String, Double> s = PrometheusText.parse("""
        # HELP tandem_engine_running Sequences in the running batch.
        # TYPE tandem_engine_running gauge
        tandem_engine_running 3
        tandem_engine_waiting 2
        tandem_engine_parked 0
        tandem_engine_kv_pages_free 40
        tandem_engine_kv_pages_total 64
        tandem_engine_tokens_per_second 12.5
        """);
    assertEquals(new LoadGauges(3, 2, 40, 64), EngineGaugeReader.read(s));
    // an MLC engine: only cumulative counters, no load gauges
    assertNull(EngineGaugeReader.read(PrometheusText.parse("prompt_tokens_sum\t10\n")));
  }
}
