package dev.tandem.fleet;

import static dev.tandem.bus.EngineState.FAILED;
import static dev.tandem.bus.EngineState.READY;
import static dev.tandem.bus.EngineState.RESTARTING;
import static dev.tandem.bus.EngineState.STARTING;
import static dev.tandem.bus.EngineState.STOPPED;
import static dev.tandem.bus.EngineState.UNHEALTHY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.EngineState;
import org.junit.jupiter.api.Test;

class EngineLifecycleTest {

  @Test
  void aCrashRestartAndStopFollowTheTable() {
    EngineLifecycle l = new EngineLifecycle();
    assertEquals(STARTING, l.state());
    assertTrue(l.move(READY, "ready in 1.0 s"));
    assertTrue(l.move(UNHEALTHY, "process exited with code 137"));
    assertFalse(l.move(UNHEALTHY, "a second reason"), "a self-transition is no change");
    assertEquals("a second reason", l.detail());
    assertEquals(0, l.generation());
    assertTrue(l.move(RESTARTING, "restart 1 after: exited"));
    assertEquals(1, l.generation(), "every restart is a new generation");
    assertTrue(l.move(READY, "ready"));
    assertTrue(l.move(STOPPED, "stopped"));
    assertEquals(1, l.generation());
  }

  @Test
  void illegalTransitionsAreBugs() {
    EngineLifecycle l = new EngineLifecycle();
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> l.move(UNHEALTHY, "probe failed"));
    assertEquals("engine lifecycle: STARTING -> UNHEALTHY is not a transition (probe failed)",
        e.getMessage());
    assertEquals(STARTING, l.state(), "a refused transition changes nothing");
    l.move(STOPPED, "stopped");
    for (EngineState s : EngineState.values()) {
      assertFalse(EngineLifecycle.allows(STOPPED, s), "stop is final: " + s);
    }
  }

  @Test
  void onlyAReadyUnhealthyOrFailedEngineMayBeRestarted() {
    for (EngineState s : EngineState.values()) {
      assertEquals(s == READY || s == UNHEALTHY || s == FAILED,
          EngineLifecycle.allows(s, RESTARTING), s.name());
    }
    assertFalse(EngineLifecycle.allows(READY, FAILED), "FAILED only after UNHEALTHY");
    assertFalse(EngineLifecycle.allows(FAILED, READY), "FAILED needs a restart first");
  }
}
