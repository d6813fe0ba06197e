package dev.tandem.engine.server;

import dev.tandem.engine.model.CoreBudget;
import dev.tandem.engine.sched.EngineCounters;
import dev.tandem.engine.sched.EngineStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The engine's metrics: a Micrometer {@link PrometheusMeterRegistry} of its own for
 * {@code GET /metrics} (live load gauges, which MLC engines lack, and cumulative counters, all
 * prefixed {@value #PREFIX}) and the JSON of {@code POST /debug/dump_engine_metrics} in MLC's
 * shape plus the same gauges, which is where EngineVerticles read an engine's load. Gauges and
 * counters read the engine's own state when scraped; only the per-route request counters are
 * incremented, and each is resolved once when its route is set up.
 */
final class EngineMetrics {
  static final String PREFIX = "tandem_engine_";

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Supplier<EngineStats> stats;
  private final Map<String, Counter> routes = new ConcurrentHashMap<>();

  EngineMetrics(Supplier<EngineStats> stats, CoreBudget cores) {
    this.stats = stats;
    Gauge.builder(PREFIX + "compute_threads", cores, CoreBudget::threads)
        .description("Model threads: the engine's core budget.")
        .tag("cpus", cores.cpuList()).tag("pinned", Boolean.toString(cores.pinned()))
        .register(registry);
    gauge("running", "Sequences in the running batch.", EngineStats::running);
    gauge("waiting", "Sequences waiting for admission.", EngineStats::waiting);
    gauge("parked", "prep_recv reservations waiting for start_generate.", EngineStats::parked);
    gauge("kv_pages_free", "Free KV cache pages (16 tokens each).", EngineStats::kvPagesFree);
    // Prometheus' client rejects a gauge named *_total; the cache's size is fixed when the engine
    // starts, so a counter keeps the name and value this page always had.
    FunctionCounter.builder(PREFIX + "kv_pages_total", stats, s -> s.get().kvPagesTotal())
        .description("KV cache pages in all (fixed at start).").register(registry);
    gauge("kv_pages_cached", "KV pages held by the prefix cache.", EngineStats::kvPagesCached);
    gauge("tokens_per_second", "Tokens computed per second over the last 10 s.",
        EngineStats::tokensPerSecond);
    FunctionCounter.builder(PREFIX + "requests_received_total", routes,
            r -> r.values().stream().mapToDouble(Counter::count).sum())
        .description("HTTP requests received on generation and MicroServing routes, whatever their outcome.")
        .register(registry);

    EngineCounters c = stats.get().counters();
    counter("requests_submitted_total", "Generation requests accepted by the engine.", c.requestsSubmitted);
    counter("requests_finished_total", "Requests that finished (stop, length or preempt).", c.requestsFinished);
    counter("requests_aborted_total", "Requests aborted (client gone or released).", c.requestsAborted);
    counter("requests_failed_total", "Requests failed by an engine error.", c.requestsFailed);
    counter("prompt_tokens_total", "Prompt tokens of accepted requests.", c.promptTokens);
    counter("prefill_tokens_total", "Prompt positions computed.", c.prefillTokens);
    counter("decode_tokens_total", "Positions computed while decoding.", c.decodeTokens);
    counter("completion_tokens_total", "Tokens generated.", c.completionTokens);
    counter("prefix_cache_hit_tokens_total", "Prompt tokens reused from the prefix cache.", c.prefixCacheHitTokens);
    counter("preemptions_total", "Sequences preempted for lack of KV.", c.preemptions);
    counter("prep_recv_total", "prep_recv reservations made.", c.prepareReceives);
    counter("remote_send_total", "remote_send requests accepted.", c.remoteSends);
    counter("start_generate_total", "Parked requests resumed.", c.startGenerates);
    counter("parked_expired_total", "Reservations freed by their time-to-live.", c.parkedExpired);
    counter("parked_released_total", "Reservations freed by /microserving/release.", c.parkedReleased);
    counter("kv_received_tokens_total", "Token positions of KV received from other engines.", c.kvReceivedTokens);
    counter("kv_sent_tokens_total", "Token positions of KV shipped to other engines.", c.kvSentTokens);
    counter("kv_transfers_rejected_total", "Incoming KV transfers refused.", c.kvTransfersRejected);
    counter("steps_total", "Forward steps run.", c.steps);
    FunctionCounter.builder(PREFIX + "prefill_seconds_total", c.prefillNanos, n -> n.get() / 1e9)
        .description("Seconds in steps with prompt tokens.").register(registry);
    FunctionCounter.builder(PREFIX + "decode_seconds_total", c.decodeNanos, n -> n.get() / 1e9)
        .description("Seconds in decode-only steps.").register(registry);
  }

  /** The counter of requests received on {@code route}; resolve once, increment per request. */
  Counter route(String route) {
    return routes.computeIfAbsent(route, r -> Counter.builder(PREFIX + "http_requests_total")
        .tag("route", r).description("HTTP requests received by route.").register(registry));
  }

  /** Where the meters live, for the scrape handler. */
  PrometheusMeterRegistry registry() {
    return registry;
  }

  /** MLC's engine metrics object (plus Tandem's gauges), as /debug/dump_engine_metrics returns it. */
  JsonObject mlcMetrics() {
    EngineStats s = stats.get();
    EngineCounters c = s.counters();
    double prefillTime = c.prefillNanos.get() / 1e9;
    double decodeTime = c.decodeNanos.get() / 1e9;
    JsonObject m = new JsonObject().put("engine_prefill_time_sum", prefillTime)
        .put("engine_decode_time_sum", decodeTime).put("engine_jump_forward_time_sum", 0.0)
        .put("prompt_tokens_sum", c.promptTokens.get())
        .put("completion_tokens_sum", c.completionTokens.get())
        .put("prefill_tokens_sum", c.prefillTokens.get())
        .put("decode_tokens_sum", c.decodeTokens.get()).put("jump_forward_tokens_sum", 0);
    if (prefillTime > 0) {
      m.put("prefill_tokens_per_s", c.prefillTokens.get() / prefillTime);
    }
    if (decodeTime > 0) {
      m.put("decode_tokens_per_s", c.decodeTokens.get() / decodeTime);
    }
    // Tandem's extension: the live load an EngineVerticle publishes for the router.
    m.put("running", s.running()).put("waiting", s.waiting()).put("parked", s.parked())
        .put("kv_pages_free", s.kvPagesFree()).put("kv_pages_total", s.kvPagesTotal())
        .put("kv_pages_cached", s.kvPagesCached()).put("tokens_per_second", s.tokensPerSecond());
    return new JsonObject().put("metrics", m);
  }

  private void gauge(String name, String help, ToDoubleFunction<EngineStats> value) {
    Gauge.builder(PREFIX + name, stats, s -> value.applyAsDouble(s.get())).description(help)
        .register(registry);
  }

  private void counter(String name, String help, AtomicLong value) {
    FunctionCounter.builder(PREFIX + name, value, AtomicLong::get).description(help)
        .register(registry);
  }
}
