package dev.tandem.router.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.router.policy.EngineSnapshot;
import dev.tandem.router.policy.RoutePolicy;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Drain, resume and removal as the registry and the policies see them. */
class EngineDrainTest {

  private static EngineStatus status(int id, EngineState state, int generation) {
    return new EngineStatus(id, "http://127.0.0.1:" + (9000 + id), EngineRole.BOTH, id, 1, state,
        generation, null);
  }

  @Test
  void aDrainedEngineGetsNoNewRequestsUntilResumedEvenAcrossRestarts() {
    EngineRegistry registry = new EngineRegistry(() -> 0L);
    registry.apply(status(0, EngineState.READY, 0));
    registry.apply(status(1, EngineState.READY, 0));
    InFlightLease running = registry.lease(1);
    assertTrue(registry.drain(1));
    assertTrue(registry.drained(1));
    assertEquals(1, registry.inFlight(1), "in-flight requests stay and finish");
    RoutePolicy policy = new RoutePolicy();
    for (int i = 0; i < 10; i++) {
      assertEquals(0, policy.pickWhole(registry.snapshot(), Set.of()).orElseThrow().id());
    }
    assertEquals(1, registry.ready().size());
    registry.apply(status(1, EngineState.RESTARTING, 0));
    registry.apply(status(1, EngineState.READY, 1));
    assertFalse(registry.snapshot().stream().filter(e -> e.id() == 1).findFirst()
        .map(EngineSnapshot::ready).orElseThrow(), "still drained after a restart");
    running.release();
    assertEquals(0, registry.inFlight(1));
    assertTrue(registry.resume(1));
    assertEquals(2, registry.ready().size());
    assertFalse(registry.drain(7), "unknown engine");
  }

  @Test
  void aRemovedEngineIsForgottenAndItsLastStoppedEventIgnored() {
    EngineRegistry registry = new EngineRegistry(() -> 0L);
    registry.apply(status(0, EngineState.READY, 0));
    registry.apply(status(1, EngineState.READY, 0));
    assertTrue(registry.remove(1));
    registry.apply(status(1, EngineState.STOPPED, 0));
    assertEquals(1, registry.statuses().size());
    assertTrue(registry.status(1).isEmpty());
    registry.apply(status(2, EngineState.STARTING, 0));
    assertEquals(2, registry.statuses().size(), "a new engine joins with its first event");
  }
}
