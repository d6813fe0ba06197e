package dev.tandem.router.policy;

/**
 * Live load an engine reports on its {@code /metrics} page: requests running and waiting, and
 * KV-cache pages free out of the total. MLC engines have no such gauges; there the router's own
 * in-flight counter is the only signal.
 */
public record LoadGauges(int running, int waiting, long freeKvPages, long totalKvPages) {

  /** KV pressure: less than a tenth of the cache is free, so a new request would likely wait or preempt. */
  public boolean kvPressure() {
    return totalKvPages > 0 && freeKvPages * 10 < totalKvPages;
  }
}
