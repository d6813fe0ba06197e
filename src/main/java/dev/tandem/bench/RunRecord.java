package dev.tandem.bench;

import java.util.List;

/**
 * Everything a run produced: each request's outcome and the measured window, from the issue of
 * the first measured request to the end of the last one (warm-up requests excluded).
 */
public record RunRecord(List<RequestOutcome> outcomes, long runStartNanos, long runEndNanos,
    long measureStartNanos, long measureEndNanos) {

  public RunRecord {
    outcomes = List.copyOf(outcomes);
  }

  /** Seconds of the measured window; 0 when nothing was measured. */
  public double measuredSeconds() {
    return measureEndNanos > measureStartNanos ? (measureEndNanos - measureStartNanos) / 1e9 : 0;
  }
}
