package dev.tandem.engine.sched;

/**
 * A snapshot of the engine's load, for /metrics and routers: live gauges plus the cumulative
 * counters.
 *
 * @param running sequences in the running batch
 * @param waiting sequences waiting for admission
 * @param parked prep_recv reservations waiting for start_generate
 * @param kvPagesCached pages held by the prefix cache
 * @param tokensPerSecond computed tokens per second over the last few seconds
 */
public record EngineStats(int running, int waiting, int parked, int kvPagesFree, int kvPagesTotal,
    int kvPagesCached, double tokensPerSecond, EngineCounters counters) {}
