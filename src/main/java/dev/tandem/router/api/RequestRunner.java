package dev.tandem.router.api;

import dev.tandem.api.ApiError;
import dev.tandem.router.access.AccessControl;
import dev.tandem.router.access.ClientKey;
import dev.tandem.router.admission.Admission;
import dev.tandem.router.admission.RateLimited;
import dev.tandem.router.dispatch.ClientOutput;
import dev.tandem.router.metrics.AccessLog;
import dev.tandem.router.metrics.OpsMeters;
import dev.tandem.router.metrics.RequestClock;
import dev.tandem.router.upstream.Cancellation;
import io.vertx.core.Future;

/**
 * What every transport does with a prepared request: admit it ({@link Admission}: the key's
 * buckets, then a running slot), run it into the transport's output while measuring it, and
 * release what admission gave however it ends, settling the key's tokens on the answer's usage;
 * then one line in the access log, if there is one, for every request however it ended. HTTP
 * ({@link CompletionsHandler}) and the bus ({@link BusCompletionsEndpoint}) share one runner, so
 * the same limits hold for both.
 */
public final class RequestRunner {

  /**
   * Where a request came from, as the access log names it.
   *
   * @param transport {@code http} or {@code bus}
   * @param api {@code completions} or {@code chat}
   * @param key null when the key was refused
   * @param clientRequestId the client's own id for the request ({@code X-Request-Id}), or null
   */
  record Origin(String transport, String api, ClientKey key, String clientRequestId) {

    /** The longest client request id taken; a longer one, or one with other chars, is ignored. */
    static final int MAX_ID_LENGTH = 128;

    /** {@code header} as a client request id: printable ASCII without spaces, else null. */
    static String clientRequestId(String header) {
      if (header == null || header.isEmpty() || header.length() > MAX_ID_LENGTH) {
        return null;
      }
      for (int i = 0; i < header.length(); i++) {
        char c = header.charAt(i);
        if (c <= ' ' || c > '~') {
          return null;
        }
      }
      return header;
    }
  }

  private final AccessControl access;
  private final Admission admission;
  private final OpsMeters ops;
  private final String mode;
  /** Null: no access log. */
  private final AccessLog log;

  public RequestRunner(AccessControl access, Admission admission, OpsMeters ops, String mode,
      AccessLog log) {
    this.access = access;
    this.admission = admission;
    this.ops = ops;
    this.mode = mode;
    this.log = log;
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
      RequestClock clock, Origin origin) {
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
      if (log != null) {
        long prompt = metered.totalTokens < 0 ? -1
            : metered.totalTokens - metered.completionTokens;
        log.log(entry(origin, request.id(), request.stream(), ar.failed() ? ar.cause() : null,
            clock, end, prompt, metered.completionTokens, ticket.queuedNanos()));
      }
    });
  }

  /** A request that failed before it ran (bad body, limits, stopping): counted, shown, logged. */
  void refused(Throwable error, Origin origin, RequestClock clock) {
    failed(ops, error);
    turnedAway(error, origin, clock);
  }

  /**
   * Logs a request turned away before it was counted as one (no key, a body over the limit):
   * the access log's line only.
   */
  void turnedAway(Throwable error, Origin origin, RequestClock clock) {
    if (log != null) {
      log.log(entry(origin, null, null, error, clock, System.nanoTime(), -1, -1, -1));
    }
  }

  private static AccessLog.Entry entry(Origin origin, String id, Boolean stream, Throwable error,
      RequestClock clock, long endNanos, long promptTokens, long completionTokens,
      long queuedNanos) {
    long arrivedMillis = System.currentTimeMillis() - (endNanos - clock.arrivedNanos()) / 1_000_000;
    ApiError e = error == null ? null : ApiError.from(error);
    return new AccessLog.Entry(arrivedMillis, origin.transport(), origin.api(),
        origin.key() == null ? null : origin.key().name(), origin.clientRequestId(), id, stream,
        e == null ? 200 : e.status(), e == null ? null : e.code() != null ? e.code() : e.type(),
        e == null ? null : e.getMessage(), promptTokens, completionTokens, millis(queuedNanos),
        millis(clock.ttftNanos()), millis(endNanos - clock.arrivedNanos()), clock.engineId());
  }

  private static double millis(long nanos) {
    return nanos < 0 ? -1 : nanos / 1e6;
  }

  /** Counts a failure by its cause: a refusal's reason, else its OpenAI code, else its status. */
  static void failed(OpsMeters ops, Throwable error) {
    ApiError e = ApiError.from(error);
    String cause = e instanceof RateLimited r ? r.reason()
        : e.code() != null ? e.code() : "http_" + e.status();
    ops.failed(e.status(), cause, e.getMessage());
  }
}
