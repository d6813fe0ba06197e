package dev.tandem.router.metrics;

import dev.tandem.router.policy.CacheAwarePolicy;
import dev.tandem.router.policy.LoadGauges;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;

/**
 * The router's meters, in a Micrometer {@link PrometheusMeterRegistry} of its own (one per router
 * verticle, so that routers and tests in one JVM never share counters), exposed on
 * {@code GET /metrics} with the names the hand-written page had. Every meter is created once, here;
 * the request path only increments. More meters (e.g. latency timers) join in the constructor, or
 * through {@link #registry()}.
 */
public final class RouterMetrics {

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  private final Counter requests = counter("tandem_router_requests_total",
      "Completion requests received.");
  /** Per status code 100..599, registered on first use (a handful of codes ever occur). */
  private final AtomicReferenceArray<Counter> responsesByStatus = new AtomicReferenceArray<>(600);
  private final Counter errors = counter("tandem_router_errors_total",
      "Completion requests that ended in an error.");
  private final Counter engineRetries = counter("tandem_router_engine_retries_total",
      "Attempts moved to another engine after a failure.");
  private final Counter preemptResumes = counter("tandem_router_preempt_resumes_total",
      "Choices resumed after a preempt or interruption.");
  private final Counter resumeContinued = resumeAttempts("continue");
  private final Counter resumeReplayed = resumeAttempts("replay");
  private final Counter failovers = counter("tandem_router_failovers_total",
      "Choices resumed on another engine after theirs failed mid-answer.");
  private final Counter replaysMatched = replayChecks("match");
  private final Counter replaysDiffered = replayChecks("mismatch");
  private final Counter mlcReleases = counter("tandem_reservation_abort_releases_total",
      "Reservations of MLC engines freed by start_generate and an immediate disconnect.");
  private final Counter clientsGone = counter("tandem_router_clients_gone_total",
      "Requests whose client went away.");
  private final AtomicLong reservationsOpen = new AtomicLong();
  private final Counter predictedPrefixTokens = counter("tandem_router_predicted_prefix_tokens_total",
      "Prompt tokens the router expected the chosen engines to find in their prefix caches.");
  private final Counter reservationsReleased = counter("tandem_reservations_released_total",
      "Reservations released explicitly.");
  private final Counter releaseFailures = counter("tandem_reservation_release_failures_total",
      "Release calls that failed (the engine's TTL frees them).");

  // Per engine, refreshed from the registry each time the page is read (engines come and go).
  private final MultiGauge inFlight = MultiGauge.builder("tandem_inflight")
      .description("Requests in flight on each engine, counted by the router.").register(registry);
  private final MultiGauge engineReady = MultiGauge.builder("tandem_engine_ready")
      .description("1 if the engine is READY (in rotation).").register(registry);
  private final MultiGauge engineGauges = MultiGauge.builder("tandem_engine_gauge")
      .description("Each engine's last fresh load report from the bus.").register(registry);

  /** Latency histograms, refusals by cause, admission gauges (docs/operations.md). */
  private final OpsMeters ops = new OpsMeters(registry);

  /** Engine choices by role, then by reason (its ordinal); registered on first use. */
  private final java.util.concurrent.ConcurrentHashMap<String, AtomicReferenceArray<Counter>>
      routeDecisions = new java.util.concurrent.ConcurrentHashMap<>();
  /** P/D decisions by their labels, registered on first use (three at most). */
  private final java.util.concurrent.ConcurrentHashMap<String, Counter> decisions =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** What the prompt-beginnings meters read (Micrometer keeps a meter's state only weakly). */
  private List<LongSupplier> promptBeginnings = List.of();

  public RouterMetrics() {
    Gauge.builder("tandem_reservations_open", reservationsOpen, AtomicLong::get)
        .description("KV reservations made by prep_recv not yet claimed or released.")
        .register(registry);
  }

  /** Lines the access log dropped because its writer was behind (the log is held by the router). */
  public void accessLog(AccessLog log) {
    FunctionCounter.builder("tandem_router_access_log_dropped_total", log, AccessLog::dropped)
        .description("Access log lines dropped because the writer was "
            + AccessLog.QUEUE + " lines behind.")
        .register(registry);
  }

  /**
   * The router's tokenizer keeps the ids of long prompts' beginnings: lookups that found one and
   * that did not, and the chars kept (read when the page is).
   */
  public void promptBeginnings(LongSupplier found, LongSupplier missed, LongSupplier chars) {
    promptBeginnings = List.of(found, missed, chars);
    for (String result : List.of("found", "missed")) {
      FunctionCounter.builder("tandem_router_prompt_beginnings_total",
              result.equals("found") ? found : missed, LongSupplier::getAsLong)
          .tag("result", result)
          .description("Long prompts (chats' conversations) whose beginning's token ids the"
              + " router had kept (found), or not (missed: a first turn, or a history dropped"
              + " for room).")
          .register(registry);
    }
    Gauge.builder("tandem_router_prompt_beginnings_chars", chars, LongSupplier::getAsLong)
        .description("Chars of prompts' beginnings whose token ids the router keeps.")
        .register(registry);
  }

  /** One engine as the page shows it; {@code gauges} null when no fresh report has them. */
  public record EngineRow(int id, String role, String state, boolean ready, int inFlight,
      LoadGauges gauges) {}

  public void requestStarted() {
    requests.increment();
  }

  /** Counts a finished request by the status the client saw (499 for a client that left). */
  public void requestEnded(int status) {
    responses(status).increment();
    if (status >= 400) {
      errors.increment();
    }
    if (status == 499) {
      clientsGone.increment();
    }
  }

  public void engineRetry() {
    engineRetries.increment();
  }

  public void preemptResume() {
    preemptResumes.increment();
  }

  /** A resumption attempt started: a continuation from delivered tokens, or a replay. */
  public void resumeAttempt(boolean replay) {
    (replay ? resumeReplayed : resumeContinued).increment();
  }

  /**
   * An engine was chosen: {@code role} whole, decode or prefill; {@code reason} prefix, balance,
   * no-prefix or least-loaded. Counters are found by role (a constant string) and reason (an
   * enum): no label string is built per request.
   */
  public void routeDecision(String role, CacheAwarePolicy.Reason reason) {
    AtomicReferenceArray<Counter> byReason = routeDecisions.computeIfAbsent(role,
        k -> new AtomicReferenceArray<>(CacheAwarePolicy.Reason.values().length));
    Counter c = byReason.get(reason.ordinal());
    if (c == null) {
      c = Counter.builder("tandem_router_route_decisions_total").tag("role", role)
          .tag("reason", reason.label())
          .description("Engine choices by role and by why that engine was chosen.")
          .register(registry); // the registry returns the one meter of these tags on a race
      byReason.set(reason.ordinal(), c);
    }
    c.increment();
  }

  /** A disaggregated request's split: decode-only, full or partial. */
  public void pdDecision(String decision) {
    decisions.computeIfAbsent("pd/" + decision, k -> Counter
        .builder("tandem_router_pd_decisions_total").tag("decision", decision)
        .description("Per-request prefill/decode splits (adaptive or static pd policy).")
        .register(registry)).increment();
  }

  /** Prompt tokens the chosen engines were predicted to have cached (cache-aware routing). */
  public void predictedPrefix(long tokens) {
    predictedPrefixTokens.increment(tokens);
  }

  /** A choice moved to another engine after its engine failed mid-answer. */
  public void failover() {
    failovers.increment();
  }

  /** Replays checked against what their clients had: how many matched, how many differed. */
  public void replaysChecked(int matched, int differed) {
    if (matched > 0) {
      replaysMatched.increment(matched);
    }
    if (differed > 0) {
      replaysDiffered.increment(differed);
    }
  }

  /** An MLC reservation was released the only way MLC allows: start it, then disconnect. */
  public void abortRelease() {
    mlcReleases.increment();
  }

  public void reservationOpened() {
    reservationsOpen.incrementAndGet();
  }

  /** A reservation left D: consumed by start_generate or released explicitly. */
  public void reservationClosed(boolean releasedExplicitly, boolean releaseFailed) {
    reservationsOpen.decrementAndGet();
    if (releasedExplicitly) {
      reservationsReleased.increment();
    }
    if (releaseFailed) {
      releaseFailures.increment();
    }
  }

  public long reservationsOpen() {
    return reservationsOpen.get();
  }

  /** Replaces the per-engine gauges with {@code rows} (call before each scrape). */
  public synchronized void showEngines(List<EngineRow> rows) {
    List<MultiGauge.Row<?>> flight = new ArrayList<>(rows.size());
    List<MultiGauge.Row<?>> ready = new ArrayList<>(rows.size());
    List<MultiGauge.Row<?>> gauges = new ArrayList<>(rows.size() * 4);
    for (EngineRow r : rows) {
      String engine = Integer.toString(r.id());
      flight.add(MultiGauge.Row.of(Tags.of("engine", engine, "role",
          r.role().toLowerCase(Locale.ROOT)), r.inFlight()));
      ready.add(MultiGauge.Row.of(Tags.of("engine", engine, "state", r.state()),
          r.ready() ? 1 : 0));
      LoadGauges g = r.gauges();
      if (g != null) {
        gauges.add(engineGauge(engine, "running", g.running()));
        gauges.add(engineGauge(engine, "waiting", g.waiting()));
        gauges.add(engineGauge(engine, "kv_free_pages", g.freeKvPages()));
        gauges.add(engineGauge(engine, "kv_total_pages", g.totalKvPages()));
      }
    }
    inFlight.register(flight, true);
    engineReady.register(ready, true);
    engineGauges.register(gauges, true);
  }

  public OpsMeters ops() {
    return ops;
  }

  /** Where the meters live: for the scrape handler, and for meters added later. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  private Counter responses(int status) {
    boolean cached = status >= 100 && status < 600;
    Counter c = cached ? responsesByStatus.get(status) : null;
    if (c == null) {
      c = Counter.builder("tandem_router_responses_total").tag("status", Integer.toString(status))
          .description("Completion requests ended, by the status the client saw (499: client went away).")
          .register(registry); // the existing counter if another thread registered it first
      if (cached) {
        responsesByStatus.set(status, c);
      }
    }
    return c;
  }

  private Counter resumeAttempts(String how) {
    return Counter.builder("tandem_router_resume_attempts_total").tag("how", how)
        .description("Attempts that resumed choices: continued from the delivered tokens, or replayed.")
        .register(registry);
  }

  private Counter replayChecks(String result) {
    return Counter.builder("tandem_router_replay_checks_total").tag("result", result)
        .description("Replayed choices checked against the text (and token ids) the client had.")
        .register(registry);
  }

  private Counter counter(String name, String help) {
    return Counter.builder(name).description(help).register(registry);
  }

  private static MultiGauge.Row<?> engineGauge(String engine, String name, long value) {
    return MultiGauge.Row.of(Tags.of("engine", engine, "name", name), value);
  }
}
