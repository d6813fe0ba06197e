package dev.tandem.router.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * The operations meters of a router: latency histograms (Prometheus {@code _bucket} series with
 * fixed buckets) for time to first token, time per output token, end-to-end time and queue time
 * per mode and engine, and for the engine calls; refusals by cause; the admission gauges. Created
 * with the router's registry by {@link RouterMetrics}; a timer of a given label set is resolved
 * once and kept, so a request costs a map lookup by mode or call (constant strings) and an
 * array index by engine id at its end (no label string is built) and nothing per chunk.
 */
public final class OpsMeters {

  private static final Duration[] LATENCY_BUCKETS = millis(5, 10, 25, 50, 100, 250, 500, 1_000,
      2_500, 5_000, 10_000, 30_000, 60_000, 120_000);
  private static final Duration[] TOKEN_BUCKETS = millis(1, 2, 5, 10, 20, 50, 100, 200, 500,
      1_000, 2_000);

  private final MeterRegistry registry;
  /** By mode, then engine id (-1: none); by call, then engine id: ok and error. */
  private final Map<String, ByEngine<RequestTimers>> requestTimers = new ConcurrentHashMap<>();
  private final Map<String, ByEngine<Timer[]>> engineCallTimers = new ConcurrentHashMap<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final RecentLatencies recent = new RecentLatencies();
  private final RecentErrors errors = new RecentErrors();
  private volatile IntSupplier running = () -> 0;
  private volatile IntSupplier queued = () -> 0;

  OpsMeters(MeterRegistry registry) {
    this.registry = registry;
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
    t.e2e.record(e2eNanos, TimeUnit.NANOSECONDS);
    if (ttftNanos >= 0) {
      t.ttft.record(ttftNanos, TimeUnit.NANOSECONDS);
    }
    if (tpotNanos >= 0) {
      t.tpot.record(tpotNanos, TimeUnit.NANOSECONDS);
    }
    recent.add(System.nanoTime(), ttftNanos >= 0 ? ttftNanos / 1e9 : Double.NaN,
        tpotNanos >= 0 ? tpotNanos / 1e9 : Double.NaN);
  }

  /** Time an admitted request waited for a slot (0 when one was free); engine as in answered. */
  public void queued(String mode, int engine, long nanos) {
    requestTimers(mode, engine).queue.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** One engine call (prep_recv, remote_send, start_generate, completions) until its answer. */
  public void engineCall(String call, int engine, boolean ok, long nanos) {
    ByEngine<Timer[]> byEngine = engineCallTimers.get(call);
    if (byEngine == null) {
      byEngine = engineCallTimers.computeIfAbsent(call, k -> new ByEngine<>(
          e -> new Timer[] {callTimer(call, e, true), callTimer(call, e, false)}));
    }
    byEngine.get(engine)[ok ? 0 : 1].record(nanos, TimeUnit.NANOSECONDS);
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

  private Timer callTimer(String call, int engine, boolean ok) {
    return Timer.builder("tandem_router_engine_call")
        .tags("call", call, "engine", Integer.toString(engine), "outcome", ok ? "ok" : "error")
        .serviceLevelObjectives(LATENCY_BUCKETS)
        .description("Engine calls until the engine answered (head of a stream), by call.")
        .register(registry);
  }

  private Timer timer(String name, String mode, String engine, Duration[] buckets, String help) {
    return Timer.builder(name).tags("mode", mode, "engine", engine)
        .serviceLevelObjectives(buckets).description(help).register(registry);
  }

  /** A request's timers for one mode and engine label. */
  private final class RequestTimers {
    final Timer e2e;
    final Timer ttft;
    final Timer tpot;
    final Timer queue;

    RequestTimers(String mode, String engine) {
      e2e = timer("tandem_router_e2e", mode, engine, LATENCY_BUCKETS,
          "Arrival to the end of the answer, per mode and engine.");
      ttft = timer("tandem_router_ttft", mode, engine, LATENCY_BUCKETS,
          "Arrival to the first generated token, per mode and engine.");
      tpot = timer("tandem_router_tpot", mode, engine, TOKEN_BUCKETS,
          "Time per output token after the first, per mode and engine.");
      queue = timer("tandem_router_queue", mode, engine, LATENCY_BUCKETS,
          "Time admitted requests waited for a --max-concurrent slot, per mode and engine.");
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
