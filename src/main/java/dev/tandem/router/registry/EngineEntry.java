package dev.tandem.router.registry;

import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.bus.LoadReport;
import dev.tandem.router.policy.LoadGauges;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The router's view of one engine: its latest status event, the router's in-flight counter (kept
 * across restarts, since leases of requests to the old process are still released into it) and
 * the last load report its EngineVerticle published, with the time the router received it.
 */
final class EngineEntry {

  final AtomicInteger inFlight = new AtomicInteger();
  /** Written under the registry's lock, read without it by {@link EngineRegistry#status}. */
  volatile EngineStatus status;
  LoadReport load;
  /** The report's running/waiting/KV gauges; null when it had no queue gauges (MLC engines). */
  LoadGauges gauges;
  long loadAtMillis;
  /** Drained by an operator: out of rotation whatever its state, until resumed. */
  boolean drained;

  EngineEntry(EngineStatus status) {
    this.status = status;
  }

  boolean ready() {
    return status.state() == EngineState.READY;
  }

  /** READY and not drained: the policies may choose it. */
  boolean inRotation() {
    return ready() && !drained;
  }

  void forgetLoad() {
    load = null;
    gauges = null;
  }
}
