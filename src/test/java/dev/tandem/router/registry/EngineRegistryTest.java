package dev.tandem.router.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.bus.LoadReport;
import dev.tandem.router.policy.EngineSnapshot;
import dev.tandem.router.policy.LoadGauges;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class EngineRegistryTest {

  private final AtomicLong now = new AtomicLong(1_000);
  private final EngineRegistry registry = new EngineRegistry(now::get);

  private static EngineStatus status(int id, EngineState state, int generation) {
    return new EngineStatus(id, "http://127.0.0.1:" + (9000 + id), EngineRole.DECODE, id, 1,
        state, generation, null);
  }

  @Test
  void onlyReadyEnginesAreInRotation() {
    registry.apply(status(0, EngineState.STARTING, 0));
    registry.apply(status(1, EngineState.READY, 0));
    assertEquals(List.of(1), registry.ready().stream().map(EngineStatus::id).toList());
    registry.apply(status(0, EngineState.READY, 0));
    registry.apply(status(1, EngineState.UNHEALTHY, 0));
    assertEquals(List.of(0), registry.ready().stream().map(EngineStatus::id).toList());
    List<EngineSnapshot> snap = registry.snapshot();
    assertTrue(snap.get(0).ready());
    assertFalse(snap.get(1).ready());
  }

  @Test
  void leasesCountAndReleaseExactlyOnce() {
    registry.apply(status(0, EngineState.READY, 0));
    InFlightLease a = registry.lease(0);
    InFlightLease b = registry.lease(0);
    assertEquals(2, registry.inFlight(0));
    a.release();
    a.release();
    assertEquals(1, registry.inFlight(0));
    assertTrue(a.released());
    b.release();
    assertEquals(0, registry.inFlight(0));
    assertEquals(0, registry.totalInFlight());
  }

  @Test
  void leasesSurviveARestartOfTheEngine() {
    registry.apply(status(0, EngineState.READY, 0));
    InFlightLease old = registry.lease(0);
    registry.apply(status(0, EngineState.UNHEALTHY, 0));
    registry.apply(status(0, EngineState.READY, 1));
    assertEquals(1, registry.inFlight(0));
    old.release();
    assertEquals(0, registry.inFlight(0));
  }

  @Test
  void aRestartedFailedOrStoppedProcessIsReportedGoneButAnUnhealthyOneIsNot() {
    List<Integer> gone = new java.util.ArrayList<>();
    registry.onProcessGone(gone::add);
    registry.apply(status(0, EngineState.READY, 0));
    registry.apply(status(1, EngineState.READY, 0));
    registry.apply(status(0, EngineState.UNHEALTHY, 0)); // the same process, its cache intact
    registry.apply(status(0, EngineState.READY, 0));
    assertEquals(List.of(), gone);
    registry.apply(status(0, EngineState.RESTARTING, 0));
    registry.apply(status(0, EngineState.READY, 1));
    registry.apply(status(1, EngineState.FAILED, 0));
    assertEquals(List.of(0, 0, 1), gone);
  }

  @Test
  void everyProcessGoneListenerIsTold() {
    // the route policy's prefix trees and the prefill backlog both forget a restarted engine
    List<String> told = new java.util.ArrayList<>();
    registry.onProcessGone(id -> told.add("policy " + id));
    registry.onProcessGone(id -> told.add("backlog " + id));
    registry.apply(status(3, EngineState.READY, 0));
    registry.apply(status(3, EngineState.READY, 1));
    assertEquals(List.of("policy 3", "backlog 3"), told);
  }

  @Test
  void snapshotFillsOnlyEnginesNoEventToldAbout() {
    registry.apply(status(0, EngineState.UNHEALTHY, 2));
    registry.applySnapshot(List.of(status(0, EngineState.READY, 1), status(1, EngineState.READY, 0)));
    assertEquals(EngineState.UNHEALTHY, registry.status(0).orElseThrow().state());
    assertEquals(EngineState.READY, registry.status(1).orElseThrow().state());
  }

  /** A report as an EngineVerticle publishes it, once per {@code periodMs}. */
  private static LoadReport report(int id, int generation, Integer running, Integer waiting,
      long periodMs) {
    return new LoadReport(id, generation, running, waiting, 10L, 100L, periodMs, 0,
        new JsonObject().put("prompt_tokens_sum", 7));
  }

  @Test
  void loadIsUsedWhileFreshAndStaleAfterThreeOfItsPeriods() {
    registry.apply(status(0, EngineState.READY, 0));
    registry.applyLoad(report(0, 0, 2, 1, 1_000));
    assertEquals(new LoadGauges(2, 1, 10, 100), registry.snapshot().get(0).gauges());
    assertEquals(3, registry.snapshot().get(0).score());
    now.addAndGet(3_000);
    assertNotNull(registry.gauges(0), "three periods old is still fresh");
    now.addAndGet(1);
    assertNull(registry.snapshot().get(0).gauges(), "older than three periods: stale");
    assertNull(registry.load(0));
    assertEquals(0, registry.snapshot().get(0).score(), "back to the router's in-flight count");

    registry.applyLoad(report(0, 0, 0, 40, 100));
    assertEquals(40, registry.snapshot().get(0).score());
    now.addAndGet(301);
    assertNull(registry.gauges(0), "staleness follows each report's own period");
  }

  @Test
  void loadIsDroppedWhenTheEngineChangesState() {
    registry.apply(status(0, EngineState.READY, 0));
    registry.applyLoad(report(0, 0, 2, 1, 1_000));
    assertNotNull(registry.gauges(0));
    registry.apply(status(0, EngineState.UNHEALTHY, 0));
    registry.apply(status(0, EngineState.READY, 0));
    assertNull(registry.gauges(0), "the load of an engine that went away says nothing now");
  }

  @Test
  void reportsOfAnotherGenerationOrAnUnreadyEngineAreIgnored() {
    registry.apply(status(0, EngineState.READY, 1));
    registry.applyLoad(report(0, 0, 9, 9, 1_000));
    assertNull(registry.load(0), "a report of the process before the restart");
    registry.apply(status(1, EngineState.STARTING, 0));
    registry.applyLoad(report(1, 0, 9, 9, 1_000));
    assertNull(registry.load(1));
    registry.applyLoad(report(7, 0, 9, 9, 1_000)); // an engine the router never heard of
    assertEquals(2, registry.statuses().size());
  }

  @Test
  void aReportWithoutQueueGaugesLeavesTheInFlightCountAlone() {
    registry.apply(status(0, EngineState.READY, 0));
    InFlightLease lease = registry.lease(0);
    registry.applyLoad(new LoadReport(0, 0, null, null, null, null, 1_000, 0,
        new JsonObject().put("prompt_tokens_sum", 120)));
    assertEquals(120, registry.load(0).metrics().getInteger("prompt_tokens_sum"),
        "an MLC engine's counters are kept");
    assertNull(registry.gauges(0), "but it told no running or waiting count");
    assertEquals(1, registry.snapshot().get(0).score());
    lease.release();
  }
}
