package dev.tandem.router.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;

/**
 * The operations meters of a router: latency histograms (Prometheus {@code _bucket} series with
 * fixed buckets) for time to first token, time per output token, end-to-end time and queue time
 * per mode and engine, and for the engine calls; refusals by cause; the admission gauges. Created
 * with the router's registry by {@link RouterMetrics}; a histogram series of a given label set is
 * resolved once and kept, so a request costs a map lookup by mode or call (constant strings) and
 * an array index by engine id at its end (no label string is built) and nothing per chunk. The
 * histograms are {@link LoopHistograms} (per-thread cells, no shared write per value), exposed as
 * Micrometer's timers were.
 */
public final class OpsMeters {

  private static final Duration[] LATENCY_BUCKETS = millis(5, 10, 25, 50, 100, 250, 500, 1_000,
      2_500, 5_000, 10_000, 30_000, 60_000, 120_000);
  private static final Duration[] TOKEN_BUCKETS = millis(1, 2, 5, 10, 20, 50, 100, 200, 500,
      1_000, 2_000);

  private final MeterRegistry registry;
  private final LoopHistograms e2e = new LoopHistograms("tandem_router_e2e",
      "Arrival to the end of the answer, per mode and engine.", LATENCY_BUCKETS, "mode", "engine");
  private final LoopHistograms ttft = new LoopHistograms("tandem_router_ttft",
      "Arrival to the first generated token, per mode and engine.", LATENCY_BUCKETS, "mode",
      "engine");
  private final LoopHistograms tpot = new LoopHistograms("tandem_router_tpot",
      "Time per output token after the first, per mode and engine.", TOKEN_BUCKETS, "mode",
      "engine");
  private final LoopHistograms queue = new LoopHistograms("tandem_router_queue",
      "Time admitted requests waited for a --max-concurrent slot, per mode and engine.",
      LATENCY_BUCKETS, "mode", "engine");
  private final LoopHistograms engineCalls = new LoopHistograms("tandem_router_engine_call",
      "Engine calls until the engine answered (head of a stream), by call.", LATENCY_BUCKETS,
      "call", "engine", "outcome");
  /** By mode, then engine id (-1: none); by call, then engine id: ok and error. */
  private final Map<String, ByEngine<RequestTimers>> requestTimers = new ConcurrentHashMap<>();
  private final Map<String, ByEngine<LoopHistograms.Series[]>> engineCallTimers =
      new ConcurrentHashMap<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final RecentLatencies recent = new RecentLatencies();
  private final RecentErrors errors = new RecentErrors();
  private volatile IntSupplier running = () -> 0;
  private volatile IntSupplier queued = () -> 0;

  OpsMeters(PrometheusMeterRegistry registry) {
    this.registry = registry;
    for (LoopHistograms h : new LoopHistograms[] {e2e, ttft, tpot, queue, engineCalls}) {
      registry.getPrometheusRegistry().register(h);
    }
    Gauge.builder("tandem_admission_running", this, m -> m.running.getAsInt())
        .description("Requests holding one of the --max-concurrent slots.").register(registry);
    Gauge.builder("tandem_admission_queued", this, m -> m.queued.getAsInt())
        .description("Requests waiting for a slot (--max-queue).").register(registry);
  }

  /** Where the admission gauges read from (the router's gate, once it exists). */
  public void admission(IntSupplier running, IntSupplier queued) {
    this.running = running;
    this.queued = queued;
  }

  /**
   * A request that got its answer: its times in nanoseconds (ttft and tpot negative when unknown).
   *
   * @param engine the id of the engine that streamed the answer, or -1 (labelled "none")
   */
  public void answered(String mode, int engine, long e2eNanos, long ttftNanos, long tpotNanos) {
    RequestTimers t = requestTimers(mode, engine);
    t.e2e.record(e2eNanos);
    t.ttft.record(ttftNanos); // a negative value (unknown) is not recorded
    t.tpot.record(tpotNanos);
    recent.add(System.nanoTime(), ttftNanos >= 0 ? ttftNanos / 1e9 : Double.NaN,
        tpotNanos >= 0 ? tpotNanos / 1e9 : Double.NaN);
  }

  /** Time an admitted request waited for a slot (0 when one was free); engine as in answered. */
  public void queued(String mode, int engine, long nanos) {
    requestTimers(mode, engine).queue.record(nanos);
  }

  /** One engine call (prep_recv, remote_send, start_generate, completions) until its answer. */
  public void engineCall(String call, int engine, boolean ok, long nanos) {
    ByEngine<LoopHistograms.Series[]> byEngine = engineCallTimers.get(call);
    if (byEngine == null) {
      byEngine = engineCallTimers.computeIfAbsent(call, k -> new ByEngine<>(
          e -> new LoopHistograms.Series[] {callTimer(call, e, true), callTimer(call, e, false)}));
    }
    byEngine.get(engine)[ok ? 0 : 1].record(nanos);
  }

  /** A request refused before it ran: auth_*, queue_full, queue_timeout, key_*. */
  public void rejected(String cause) {
    counter("tandem_router_rejected_total", "cause", cause,
        "Requests refused by access or admission control, by cause.").increment();
  }

  /**
   * A request that ended in an error (refusals included), counted by cause (a refusal's reason,
   * else the OpenAI code, else {@code http_STATUS}); the dashboard shows the last ones.
   */
  public void failed(int status, String cause, String message) {
    counter("tandem_router_errors_by_cause_total", "cause", cause,
        "Requests that ended in an error, by cause.").increment();
    errors.add(status, cause, message);
  }

  public RecentErrors errors() {
    return errors;
  }

  public RecentLatencies recent() {
    return recent;
  }

  /** The four timers of a mode and engine, registered on first use. */
  private RequestTimers requestTimers(String mode, int engine) {
    ByEngine<RequestTimers> byEngine = requestTimers.get(mode);
    if (byEngine == null) {
      byEngine = requestTimers.computeIfAbsent(mode, k -> new ByEngine<>(
          e -> new RequestTimers(mode, e < 0 ? "none" : Integer.toString(e))));
    }
    return byEngine.get(engine);
  }

  private LoopHistograms.Series callTimer(String call, int engine, boolean ok) {
    return engineCalls.series(call, Integer.toString(engine), ok ? "ok" : "error");
  }

  /** A request's histogram series for one mode and engine label. */
  private final class RequestTimers {
    final LoopHistograms.Series e2e;
    final LoopHistograms.Series ttft;
    final LoopHistograms.Series tpot;
    final LoopHistograms.Series queue;

    RequestTimers(String mode, String engine) {
      this.e2e = OpsMeters.this.e2e.series(mode, engine);
      this.ttft = OpsMeters.this.ttft.series(mode, engine);
      this.tpot = OpsMeters.this.tpot.series(mode, engine);
      this.queue = OpsMeters.this.queue.series(mode, engine);
    }
  }

  private Counter counter(String name, String tag, String value, String help) {
    return counters.computeIfAbsent(name + "/" + value, k -> Counter.builder(name).tag(tag, value)
        .description(help).register(registry));
  }

  private static Duration[] millis(long... ms) {
    Duration[] out = new Duration[ms.length];
    for (int i = 0; i < ms.length; i++) {
      out[i] = Duration.ofMillis(ms[i]);
    }
    return out;
  }
}
