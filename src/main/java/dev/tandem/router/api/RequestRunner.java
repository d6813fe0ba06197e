package dev.tandem.router.api;

import dev.tandem.api.ApiError;
import dev.tandem.router.access.AccessControl;
import dev.tandem.router.access.ClientKey;
import dev.tandem.router.admission.Admission;
import dev.tandem.router.admission.RateLimited;
import dev.tandem.router.dispatch.ClientOutput;
import dev.tandem.router.metrics.OpsMeters;
import dev.tandem.router.metrics.RequestClock;
import dev.tandem.router.upstream.Cancellation;
import io.vertx.core.Future;

/**
 * What every transport does with a prepared request: admit it ({@link Admission}: the key's
 * buckets, then a running slot), run it into the transport's output while measuring it, and
 * release what admission gave however it ends, settling the key's tokens on the answer's usage.
 * HTTP ({@link CompletionsHandler}) and the bus ({@link BusCompletionsEndpoint}) share one
 * runner, so the same limits hold for both.
 */
public final class RequestRunner {

  private final AccessControl access;
  private final Admission admission;
  private final OpsMeters ops;
  private final String mode;

  public RequestRunner(AccessControl access, Admission admission, OpsMeters ops, String mode) {
    this.access = access;
    this.admission = admission;
    this.ops = ops;
    this.mode = mode;
  }

  AccessControl access() {
    return access;
  }

  /** Whether the router has begun to stop: it takes no new request ({@link Admission#drain}). */
  boolean draining() {
    return admission.draining();
  }

  Future<Admission.Ticket> admit(ClientKey key, PreparedRequest request, Cancellation cancel) {
    return admission.admit(key, request.tokenEstimate(), cancel);
  }

  /** Runs an admitted request; the ticket is released when it ends, however it ends. */
  Future<Void> run(PreparedRequest request, Admission.Ticket ticket, ClientOutput output,
      RequestClock clock) {
    MeteredOutput metered = new MeteredOutput(output, ops);
    Future<Void> run;
    try {
      run = request.execute(metered, clock);
    } catch (RuntimeException e) {
      metered.fail(e);
      run = Future.failedFuture(e);
    }
    return run.andThen(ar -> {
      ticket.release(metered.totalTokens);
      long end = System.nanoTime();
      int engine = clock.engineId();
      ops.queued(mode, engine, ticket.queuedNanos());
      if (ar.succeeded()) {
        ops.answered(mode, engine, end - clock.arrivedNanos(), clock.ttftNanos(),
            clock.tpotNanos(end, Math.max(0, metered.completionTokens)));
      }
    });
  }

  /** A request that failed before it ran (bad body, no key, limits): counted and shown. */
  void refused(Throwable error) {
    failed(ops, error);
  }

  /** Counts a failure by its cause: a refusal's reason, else its OpenAI code, else its status. */
  static void failed(OpsMeters ops, Throwable error) {
    ApiError e = ApiError.from(error);
    String cause = e instanceof RateLimited r ? r.reason()
        : e.code() != null ? e.code() : "http_" + e.status();
    ops.failed(e.status(), cause, e.getMessage());
  }
}
