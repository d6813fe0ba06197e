package dev.tandem.router.registry;

import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.router.policy.LoadGauges;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The router's view of one engine: its latest status event, the router's in-flight counter (kept
 * across restarts, since leases of requests to the old process are still released into it) and
 * the last gauges scraped from its {@code /metrics}.
 */
final class EngineEntry {

  final AtomicInteger inFlight = new AtomicInteger();
  EngineStatus status;
  LoadGauges gauges;
  long gaugesAtMillis;

  EngineEntry(EngineStatus status) {
    this.status = status;
  }

  boolean ready() {
    return status.state() == EngineState.READY;
  }
}
