package dev.tandem.router.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.router.policy.EngineSnapshot;
import dev.tandem.router.policy.LoadGauges;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class EngineRegistryTest {

  private final AtomicLong now = new AtomicLong(1_000);
  private final EngineRegistry registry = new EngineRegistry(now::get, 3_000);

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
  void snapshotFillsOnlyEnginesNoEventToldAbout() {
    registry.apply(status(0, EngineState.UNHEALTHY, 2));
    registry.applySnapshot(List.of(status(0, EngineState.READY, 1), status(1, EngineState.READY, 0)));
    assertEquals(EngineState.UNHEALTHY, registry.status(0).orElseThrow().state());
    assertEquals(EngineState.READY, registry.status(1).orElseThrow().state());
  }

  @Test
  void gaugesAreUsedWhileFreshAndDroppedOnStateChange() {
    registry.apply(status(0, EngineState.READY, 0));
    LoadGauges g = new LoadGauges(2, 1, 10, 100);
    registry.updateGauges(0, 0, g);
    assertEquals(g, registry.snapshot().get(0).gauges());
    now.addAndGet(3_001);
    assertNull(registry.snapshot().get(0).gauges(), "stale gauges must be ignored");
    registry.updateGauges(0, 0, g);
    assertNotNull(registry.gauges(0));
    registry.apply(status(0, EngineState.UNHEALTHY, 0));
    registry.apply(status(0, EngineState.READY, 0));
    assertNull(registry.gauges(0), "gauges of an engine that went away say nothing now");
  }

  @Test
  void gaugesOfAnOlderGenerationAreIgnored() {
    registry.apply(status(0, EngineState.READY, 1));
    registry.updateGauges(0, 0, new LoadGauges(9, 9, 0, 100));
    assertNull(registry.gauges(0));
  }
}
