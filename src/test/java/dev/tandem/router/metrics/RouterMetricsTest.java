package dev.tandem.router.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.router.metrics.RouterMetrics.EngineRow;
import dev.tandem.router.policy.LoadGauges;
import dev.tandem.testing.PrometheusSamples;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RouterMetricsTest {

  @Test
  void todaysNamesWithTheirTypes() {
    RouterMetrics m = new RouterMetrics();
    m.requestStarted();
    m.requestStarted();
    m.requestEnded(200);
    m.requestEnded(499);
    m.engineRetry();
    m.preemptResume();
    m.resumeAttempt(false);
    m.resumeAttempt(true);
    m.resumeAttempt(true);
    m.reservationOpened();
    m.reservationOpened();
    m.reservationClosed(true, true);
    m.showEngines(List.of(new EngineRow(0, "PREFILL", "READY", true, 3, null),
        new EngineRow(1, "DECODE", "UNHEALTHY", false, 0, new LoadGauges(2, 5, 10, 128))));
    String page = m.registry().scrape();
    Map<String, Double> s = PrometheusSamples.parse(page);
    assertEquals(2, s.get("tandem_router_requests_total"));
    assertEquals(1, s.get("tandem_router_responses_total{status=\"200\"}"));
    assertEquals(1, s.get("tandem_router_responses_total{status=\"499\"}"));
    assertEquals(1, s.get("tandem_router_errors_total"));
    assertEquals(1, s.get("tandem_router_clients_gone_total"));
    assertEquals(1, s.get("tandem_router_engine_retries_total"));
    assertEquals(1, s.get("tandem_router_preempt_resumes_total"));
    assertEquals(1, s.get("tandem_router_resume_attempts_total{how=\"continue\"}"));
    assertEquals(2, s.get("tandem_router_resume_attempts_total{how=\"replay\"}"));
    assertEquals(1, s.get("tandem_reservations_open"));
    assertEquals(1, s.get("tandem_reservations_released_total"));
    assertEquals(1, s.get("tandem_reservation_release_failures_total"));
    assertEquals(3, s.get("tandem_inflight{engine=\"0\",role=\"prefill\"}"));
    assertEquals(1, s.get("tandem_engine_ready{engine=\"0\",state=\"READY\"}"));
    assertEquals(0, s.get("tandem_engine_ready{engine=\"1\",state=\"UNHEALTHY\"}"));
    assertEquals(5, s.get("tandem_engine_gauge{engine=\"1\",name=\"waiting\"}"));
    assertEquals(128, s.get("tandem_engine_gauge{engine=\"1\",name=\"kv_total_pages\"}"));
    assertFalse(s.containsKey("tandem_engine_gauge{engine=\"0\",name=\"waiting\"}"),
        "no gauges for an engine without a fresh report");
    assertTrue(page.contains("# TYPE tandem_inflight gauge"), page);
    assertTrue(page.contains("# TYPE tandem_reservations_open gauge"), page);
    assertTrue(page.contains("# TYPE tandem_router_requests_total counter"), page);
  }

  @Test
  void engineRowsFollowTheRegistryAndRoutersShareNothing() {
    RouterMetrics a = new RouterMetrics();
    RouterMetrics b = new RouterMetrics();
    a.requestStarted();
    a.showEngines(List.of(new EngineRow(0, "BOTH", "READY", true, 1, null),
        new EngineRow(1, "BOTH", "READY", true, 0, null)));
    a.showEngines(List.of(new EngineRow(1, "BOTH", "READY", true, 2, null)));
    Map<String, Double> sa = PrometheusSamples.parse(a.registry().scrape());
    assertFalse(sa.containsKey("tandem_inflight{engine=\"0\",role=\"both\"}"), "engine 0 is gone");
    assertEquals(2, sa.get("tandem_inflight{engine=\"1\",role=\"both\"}"));
    assertEquals(0, PrometheusSamples.parse(b.registry().scrape()).get("tandem_router_requests_total"),
        "each router verticle has its own registry");
  }
}
