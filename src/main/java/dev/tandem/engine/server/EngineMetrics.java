package dev.tandem.engine.server;

import dev.tandem.engine.model.CoreBudget;
import dev.tandem.engine.sched.EngineCounters;
import dev.tandem.engine.sched.EngineStats;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The engine's metrics: {@code GET /metrics} in Prometheus text (live load gauges a router can
 * balance on, which MLC engines lack, and cumulative counters) and the JSON of
 * {@code POST /debug/dump_engine_metrics} in MLC's shape.
 */
final class EngineMetrics {
  static final String PREFIX = "tandem_engine_";

  private final Map<String, LongAdder> httpRequests = new ConcurrentHashMap<>();
  private final CoreBudget cores;

  EngineMetrics(CoreBudget cores) {
    this.cores = cores;
  }

  /** Counts a request that reached the server on {@code route}, whatever became of it. */
  void countRequest(String route) {
    httpRequests.computeIfAbsent(route, r -> new LongAdder()).increment();
  }

  String prometheus(EngineStats s) {
    StringBuilder b = new StringBuilder(2048);
    gauge(b, "running", "Sequences in the running batch.", s.running());
    gauge(b, "waiting", "Sequences waiting for admission.", s.waiting());
    gauge(b, "parked", "prep_recv reservations waiting for start_generate.", s.parked());
    gauge(b, "kv_pages_free", "Free KV cache pages (16 tokens each).", s.kvPagesFree());
    gauge(b, "kv_pages_total", "KV cache pages in all.", s.kvPagesTotal());
    gauge(b, "kv_pages_cached", "KV pages held by the prefix cache.", s.kvPagesCached());
    gauge(b, "tokens_per_second", "Tokens computed per second over the last 10 s.", s.tokensPerSecond());
    b.append("# HELP ").append(PREFIX).append("compute_threads Model threads: the engine's core budget.\n");
    b.append("# TYPE ").append(PREFIX).append("compute_threads gauge\n");
    b.append(PREFIX).append("compute_threads{cpus=\"").append(cores.cpuList()).append("\",pinned=\"")
        .append(cores.pinned()).append("\"} ").append(cores.threads()).append('\n');

    long received = httpRequests.values().stream().mapToLong(LongAdder::sum).sum();
    counter(b, "requests_received_total",
        "HTTP requests received on generation and MicroServing routes, whatever their outcome.", received);
    b.append("# HELP ").append(PREFIX).append("http_requests_total HTTP requests received by route.\n");
    b.append("# TYPE ").append(PREFIX).append("http_requests_total counter\n");
    httpRequests.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e ->
        b.append(PREFIX).append("http_requests_total{route=\"").append(e.getKey()).append("\"} ")
            .append(e.getValue().sum()).append('\n'));

    EngineCounters c = s.counters();
    counter(b, "requests_submitted_total", "Generation requests accepted by the engine.", c.requestsSubmitted.get());
    counter(b, "requests_finished_total", "Requests that finished (stop, length or preempt).", c.requestsFinished.get());
    counter(b, "requests_aborted_total", "Requests aborted (client gone or released).", c.requestsAborted.get());
    counter(b, "requests_failed_total", "Requests failed by an engine error.", c.requestsFailed.get());
    counter(b, "prompt_tokens_total", "Prompt tokens of accepted requests.", c.promptTokens.get());
    counter(b, "prefill_tokens_total", "Prompt positions computed.", c.prefillTokens.get());
    counter(b, "decode_tokens_total", "Positions computed while decoding.", c.decodeTokens.get());
    counter(b, "completion_tokens_total", "Tokens generated.", c.completionTokens.get());
    counter(b, "prefix_cache_hit_tokens_total", "Prompt tokens reused from the prefix cache.", c.prefixCacheHitTokens.get());
    counter(b, "preemptions_total", "Sequences preempted for lack of KV.", c.preemptions.get());
    counter(b, "prep_recv_total", "prep_recv reservations made.", c.prepareReceives.get());
    counter(b, "remote_send_total", "remote_send requests accepted.", c.remoteSends.get());
    counter(b, "start_generate_total", "Parked requests resumed.", c.startGenerates.get());
    counter(b, "parked_expired_total", "Reservations freed by their time-to-live.", c.parkedExpired.get());
    counter(b, "parked_released_total", "Reservations freed by /microserving/release.", c.parkedReleased.get());
    counter(b, "kv_received_tokens_total", "Token positions of KV received from other engines.", c.kvReceivedTokens.get());
    counter(b, "kv_sent_tokens_total", "Token positions of KV shipped to other engines.", c.kvSentTokens.get());
    counter(b, "kv_transfers_rejected_total", "Incoming KV transfers refused.", c.kvTransfersRejected.get());
    counter(b, "steps_total", "Forward steps run.", c.steps.get());
    counter(b, "prefill_seconds_total", "Seconds in steps with prompt tokens.", c.prefillNanos.get() / 1e9);
    counter(b, "decode_seconds_total", "Seconds in decode-only steps.", c.decodeNanos.get() / 1e9);
    return b.toString();
  }

  /** MLC's engine metrics object (plus Tandem's gauges), as /debug/dump_engine_metrics returns it. */
  JsonObject mlcMetrics(EngineStats s) {
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
    m.put("running", s.running()).put("waiting", s.waiting()).put("parked", s.parked())
        .put("kv_pages_free", s.kvPagesFree()).put("kv_pages_total", s.kvPagesTotal())
        .put("kv_pages_cached", s.kvPagesCached()).put("tokens_per_second", s.tokensPerSecond());
    return new JsonObject().put("metrics", m);
  }

  private static void gauge(StringBuilder b, String name, String help, double value) {
    line(b, name, help, "gauge", value);
  }

  private static void counter(StringBuilder b, String name, String help, double value) {
    line(b, name, help, "counter", value);
  }

  private static void line(StringBuilder b, String name, String help, String type, double value) {
    b.append("# HELP ").append(PREFIX).append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(PREFIX).append(name).append(' ').append(type).append('\n');
    b.append(PREFIX).append(name).append(' ');
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      b.append((long) value);
    } else {
      b.append(value);
    }
    b.append('\n');
  }
}
