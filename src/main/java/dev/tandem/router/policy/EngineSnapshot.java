package dev.tandem.router.policy;

import dev.tandem.bus.EngineRole;

/**
 * What a policy sees of one engine at one moment: identity, role, whether it is usable now, the
 * router's in-flight count for it and, when fresh, the engine's own gauges (null otherwise).
 */
public record EngineSnapshot(int id, EngineRole role, boolean ready, int inFlight, LoadGauges gauges) {

  /**
   * Load score: the router's in-flight count, or the engine's running + waiting requests when it
   * reports more (other clients, or requests the router already gave up on but the engine still
   * runs). Taking the maximum rather than the sum avoids counting our own requests twice.
   */
  public long score() {
    if (gauges == null) {
      return inFlight;
    }
    return Math.max(inFlight, (long) gauges.running() + gauges.waiting());
  }

  public boolean kvPressure() {
    return gauges != null && gauges.kvPressure();
  }
}
