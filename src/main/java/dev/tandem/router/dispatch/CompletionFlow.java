package dev.tandem.router.dispatch;

import dev.tandem.retry.Backoff;
import dev.tandem.router.metrics.RequestClock;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.router.upstream.ClientGoneException;
import dev.tandem.router.upstream.UpstreamException;
import dev.tandem.router.upstream.UsageExtra;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of one completion request, whatever the routing mode: the first attempt, retries on
 * another engine while the failed attempt delivered nothing, resumption of preempted choices
 * (bounded), and the end: suffix, usage, the whole answer, or the error. Mode-specific engine
 * calls are the {@link Dispatcher}'s; this class never talks to an engine itself.
 *
 * <p>A failure after text was delivered (streamed to the client, or kept for a whole answer) is
 * a <em>failover</em>: the unfinished choices resume on another engine, from prompt + delivered
 * tokens (greedy) or as a replay checked against what the client has (sampling, or ids unknown),
 * at most {@code maxFailovers} times per choice; the client sees one uninterrupted answer. While
 * no engine can serve but one is on its way back (restarting), a request waits for it (within
 * {@code busyWaitMs}).
 */
public final class CompletionFlow implements RelayTarget {

  private static final Logger LOG = LoggerFactory.getLogger(CompletionFlow.class);

  /** Bounds of one flow (from the router options). */
  public record Limits(int maxEngineAttempts, int maxPreemptRetries, int retryAfterSeconds,
      long busyWaitMs, int maxFailovers) {}

  /** Back-off between tries on busy engines: 25 ms doubling to 500 ms. */
  static final Backoff BUSY_BACKOFF = Backoff.ofMillis(25, 500);

  private final Vertx vertx;
  private final CompletionJob job;
  private final Dispatcher dispatcher;
  private final ClientOutput output;
  private final Limits limits;
  private final RouterMetrics metrics;
  private final ResumePlanner planner;
  private final ChoiceLedger ledger;
  private final ClientChunks chunks;
  /** Where the request's first token and serving engine are noted, or null. */
  private final RequestClock clock;
  /** Engines that failed this request: later attempts avoid them (Set.of() until one fails). */
  private Set<Integer> failedEngines = Set.of();
  private final DrainWaiters drainWaiters = new DrainWaiters();
  /** The last engine failure: reported instead of "no engine left" once every engine failed. */
  private UpstreamException lastEngineFailure;
  private int attemptCount;
  private int engineCompletionTokens;
  /** The engine's own usage record (timings) of the last attempt that succeeded. */
  private UsageExtra engineUsageExtra;
  /** How the last successful attempt's engines were chosen. */
  private Routing routing;
  private boolean echoSent;
  /** Once a resumption had to replay, later ones replay too (ids are no longer tracked). */
  private boolean replayMode;
  /** Time spent waiting for busy engines, and how many waits that took. */
  private long busyWaitedMs;
  private int busyWaits;

  /**
   * @param clock notes when the first text was generated (the first non-empty delta any attempt
   *     relays) and which engine served it (the whole-request or decode engine of the last attempt
   *     that chose one); null when nobody measures the request
   */
  public CompletionFlow(Vertx vertx, CompletionJob job, Dispatcher dispatcher, ClientOutput output,
      Limits limits, RouterMetrics metrics, DeliveredTokens deliveredTokens, RequestClock clock) {
    this.vertx = vertx;
    this.job = job;
    this.dispatcher = dispatcher;
    this.output = output;
    this.limits = limits;
    this.metrics = metrics;
    this.planner = new ResumePlanner(deliveredTokens);
    this.ledger = new ChoiceLedger(job.n(), job.engineFields().getValue("stop") != null);
    this.chunks = new ClientChunks(job);
    this.clock = clock;
    if (clock != null) {
      clock.choices(job.n());
    }
  }

  /** Runs the request to its end; the output has been completed or failed when this completes. */
  public Future<Void> run() {
    return runSpec(AttemptSpec.initial(job)).compose(v -> finish()).transform(ar -> {
      if (ar.succeeded()) {
        return Future.succeededFuture();
      }
      // Once the client is gone, every failure is a consequence of that.
      Throwable error = job.cancellation().cancelled() ? new ClientGoneException() : ar.cause();
      output.fail(error); // first: cancelling fails the request's other flows (a list's prompts)
      job.cancellation().cancel(); // stops attempts still running for other choices
      return Future.failedFuture(error);
    });
  }

  private Future<Void> runSpec(AttemptSpec spec) {
    return attempt(spec, 1).compose(this::resume);
  }

  private Future<AttemptResult> attempt(AttemptSpec spec, int tryNo) {
    if (job.cancellation().cancelled()) {
      return Future.failedFuture(new ClientGoneException());
    }
    AttemptResult result = new AttemptResult();
    String engineRequestId = attemptCount++ == 0 ? job.engineRequestId()
        : job.engineRequestId() + "-" + attemptCount;
    Attempt a = new Attempt(job, spec, engineRequestId, failedEngines, this, result);
    Future<Void> run;
    try {
      run = dispatcher.run(a);
    } catch (UpstreamException e) {
      run = Future.failedFuture(e); // the chosen engine was removed meanwhile (EngineCalls.status)
    }
    return run.transform(ar -> {
      Routing chosen = result.routing();
      if (clock != null && chosen != null) {
        clock.engine(chosen.servingEngine());
      }
      result.outcomes().forEach(o -> ledger.record(o, spec.replay()));
      metrics.replaysChecked(result.replaysMatched(), result.replaysDiffered());
      if (ar.succeeded()) {
        engineCompletionTokens += result.engineCompletionTokens();
        engineUsageExtra = result.engineUsageExtra();
        routing = result.routing();
        return Future.succeededFuture(result);
      }
      Throwable err = ar.cause();
      if (job.cancellation().cancelled()) {
        return Future.failedFuture(new ClientGoneException());
      }
      if (err instanceof NoEngineAvailableException none && none.recovering()
          && busyWaitedMs < limits.busyWaitMs()) {
        // Engines are restarting (a crash, a world re-form): wait for them rather than fail. The
        // ones this request saw fail come back as new processes, so they are tried again too.
        failedEngines = Set.of();
        return vertx.timer(busyDelay()).compose(v -> attempt(spec, tryNo));
      }
      if (err instanceof NoEngineAvailableException && lastEngineFailure != null) {
        return Future.failedFuture(lastEngineFailure); // why the engines we had failed, not "none left"
      }
      if (!(err instanceof UpstreamException ue) || !ue.retriable()) {
        return Future.failedFuture(err);
      }
      if (ue.kind() == UpstreamException.Kind.BUSY && !result.deliveredAny()
          && busyWaitedMs < limits.busyWaitMs()) {
        // No room now (KV cache full): wait a little and try again, this engine included.
        long delay = busyDelay();
        LOG.debug("{}: {}; trying again in {} ms", engineRequestId, ue.getMessage(), delay);
        return vertx.timer(delay).compose(v -> attempt(spec, tryNo));
      }
      if (failedEngines.isEmpty()) {
        failedEngines = new HashSet<>();
      }
      failedEngines.add(ue.engineId());
      lastEngineFailure = ue;
      if (!result.deliveredAny()) {
        if (tryNo >= limits.maxEngineAttempts()) {
          return Future.failedFuture(ue);
        }
        LOG.info("{}: {}; trying another engine ({}/{})", engineRequestId, ue.getMessage(), tryNo + 1,
            limits.maxEngineAttempts());
        metrics.engineRetry();
        return attempt(spec, tryNo + 1);
      }
      LOG.info("{}: {}; failing over: its unfinished choices resume on another engine",
          engineRequestId, ue.getMessage());
      for (ChoiceRoute r : spec.routes()) {
        if (!r.drop() && !ledger.finished(r.clientIndex())) {
          result.failedOver(r.clientIndex(), ue);
        }
      }
      return Future.succeededFuture(result);
    });
  }

  /** The next wait for busy or restarting engines, taken from the request's waiting budget. */
  private long busyDelay() {
    long delay = Math.min(BUSY_BACKOFF.delay(++busyWaits).toMillis(),
        limits.busyWaitMs() - busyWaitedMs);
    busyWaitedMs += delay;
    return delay;
  }

  private Future<Void> resume(AttemptResult result) {
    if (result.toResume().isEmpty()) {
      return Future.succeededFuture();
    }
    for (int i : result.toResume()) {
      ChoiceLedger.Choice c = ledger.get(i);
      if (result.failedOver(i)) {
        if (c.failovers >= limits.maxFailovers()) {
          return Future.failedFuture(result.failure()); // the stream ends with the engine's error
        }
        c.failovers++;
        metrics.failover();
        continue;
      }
      if (c.resumes >= limits.maxPreemptRetries()) {
        return Future.failedFuture(
            new PreemptedTooOftenException(i, c.resumes, limits.retryAfterSeconds()));
      }
      c.resumes++;
      metrics.preemptResume();
    }
    return planner.plan(job, ledger, result.toResume(), replayMode).compose(plan -> {
      replayMode |= plan.replay();
      for (int i : plan.exhausted()) {
        deliver(i, new ChoiceDelta("", null, "length"));
      }
      List<Future<Void>> runs = new ArrayList<>();
      for (AttemptSpec spec : plan.specs()) {
        LOG.debug("{}: {}", job.engineRequestId(), spec.purpose());
        metrics.resumeAttempt(spec.replay());
        runs.add(runSpec(spec));
      }
      return Future.all(runs).mapEmpty();
    });
  }

  private Future<Void> finish() {
    for (int i = 0; i < ledger.size(); i++) {
      if (!ledger.finished(i)) {
        return Future.failedFuture(new IllegalStateException("choice " + i + " never finished"));
      }
    }
    sendEcho();
    if (job.stream() && job.suffix() != null && !job.suffix().isEmpty()) {
      for (int i = 0; i < job.n(); i++) {
        output.write(chunks.delta(i, job.suffix(), null, null)); // as MLC: after every choice finished
      }
    }
    int completion = ledger.allTokenCountsKnown() ? ledger.totalTokens() : engineCompletionTokens;
    // One engine produced the whole answer: its own record (timings, cache hits) passes through;
    // after retries or resumes no single engine's record is whole.
    output.complete(chunks.end(ledger, job.promptIds().length, completion,
        attemptCount == 1 ? engineUsageExtra : null, routing));
    return Future.succeededFuture();
  }

  @Override
  public void deliver(int clientIndex, ChoiceDelta delta) {
    if (clock != null && !delta.text().isEmpty()) {
      clock.firstToken();
    }
    if (ledger.finished(clientIndex)) {
      return; // never text after a finish reason, whatever an engine sends
    }
    ledger.apply(clientIndex, delta);
    if (job.stream()) {
      sendEcho();
      output.write(chunks.delta(clientIndex, delta.text(),
          job.logprobs() == null ? null : delta.logprobs(), delta.finishReason()));
    }
  }

  /** The router echoes the prompt itself, once, just before the first generated text. */
  private void sendEcho() {
    if (echoSent || job.echoText() == null || !job.stream()) {
      return;
    }
    echoSent = true;
    for (int i = 0; i < job.n(); i++) {
      output.write(chunks.delta(i, job.echoText(), null, null));
    }
  }

  @Override
  public boolean writeQueueFull() {
    return output.writeQueueFull();
  }

  /** Several streams (choices resumed in parallel) may wait for the same client drain. */
  @Override
  public void onDrain(Handler<Void> handler) {
    drainWaiters.add(output, handler);
  }
}
