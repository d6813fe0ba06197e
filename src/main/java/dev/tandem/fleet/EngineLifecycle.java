package dev.tandem.fleet;

import static dev.tandem.bus.EngineState.FAILED;
import static dev.tandem.bus.EngineState.READY;
import static dev.tandem.bus.EngineState.RESTARTING;
import static dev.tandem.bus.EngineState.STARTING;
import static dev.tandem.bus.EngineState.STOPPED;
import static dev.tandem.bus.EngineState.UNHEALTHY;

import dev.tandem.bus.EngineState;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * One engine's lifecycle as an explicit state machine: the current state, why it was entered, the
 * generation (the number of restarts so far) and the table of allowed transitions.
 *
 * <pre>
 * STARTING   → READY | FAILED | STOPPED
 * READY      → UNHEALTHY | RESTARTING | STOPPED
 * UNHEALTHY  → UNHEALTHY | RESTARTING | FAILED | STOPPED   (a second reason, e.g. exit after a hang)
 * RESTARTING → READY | UNHEALTHY | STOPPED
 * FAILED     → RESTARTING | STOPPED                        (only a requested restart revives it)
 * STOPPED    → (nothing: stop is final)
 * </pre>
 *
 * A transition the table does not allow is a bug in the caller and throws. Not thread-safe: owned
 * by the EngineVerticle's context.
 */
final class EngineLifecycle {
  private static final Map<EngineState, Set<EngineState>> NEXT = new EnumMap<>(EngineState.class);

  static {
    NEXT.put(STARTING, EnumSet.of(READY, FAILED, STOPPED));
    NEXT.put(READY, EnumSet.of(UNHEALTHY, RESTARTING, STOPPED));
    NEXT.put(UNHEALTHY, EnumSet.of(UNHEALTHY, RESTARTING, FAILED, STOPPED));
    NEXT.put(RESTARTING, EnumSet.of(READY, UNHEALTHY, STOPPED));
    NEXT.put(FAILED, EnumSet.of(RESTARTING, STOPPED));
    NEXT.put(STOPPED, EnumSet.noneOf(EngineState.class));
  }

  private EngineState state = STARTING;
  private String detail = "starting";
  private int generation;

  /** Whether the table allows {@code from → to}. */
  static boolean allows(EngineState from, EngineState to) {
    return NEXT.get(from).contains(to);
  }

  /**
   * Enters {@code next} for reason {@code why}; entering RESTARTING starts a new generation.
   *
   * @return whether the state changed (false for a self-transition, which only updates the reason)
   * @throws IllegalStateException when the table does not allow the transition
   */
  boolean move(EngineState next, String why) {
    if (!allows(state, next)) {
      throw new IllegalStateException("engine lifecycle: " + state + " -> " + next
          + " is not a transition (" + why + ")");
    }
    boolean changed = next != state;
    state = next;
    detail = why;
    if (next == RESTARTING) {
      generation++;
    }
    return changed;
  }

  EngineState state() {
    return state;
  }

  String detail() {
    return detail;
  }

  int generation() {
    return generation;
  }
}
