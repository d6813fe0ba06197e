package dev.tandem.router.admission;

import static dev.tandem.config.RouterOptions.KEY_RPM;
import static dev.tandem.config.RouterOptions.KEY_TPM;
import static dev.tandem.config.RouterOptions.MAX_CONCURRENT;
import static dev.tandem.config.RouterOptions.MAX_QUEUE;
import static dev.tandem.config.RouterOptions.QUEUE_TIMEOUT;
import static dev.tandem.config.RouterOptions.RETRY_AFTER_SECONDS;

import dev.tandem.config.RouterOptions;
import dev.tandem.router.access.ClientKey;
import dev.tandem.router.upstream.Cancellation;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Admission control for every transport (HTTP and event bus) of one router: first the key's
 * buckets (requests and tokens per minute), then a running slot of the {@link AdmissionGate}
 * (waiting in its queue if need be). A request that is refused gets a {@link RateLimited} 429
 * and its reservation back; one that is admitted holds a {@link Ticket} that it releases exactly
 * once when it ends, settling its token reservation on the tokens it really used. Once the router
 * begins to stop ({@link #drain}), every new request is refused with {@link ShuttingDown} and
 * the admitted ones run to their end.
 */
public final class Admission {

  /** What an admitted request holds: its slot, its key's reservation, the headers to send. */
  public static final class Ticket {
    private final AdmissionGate.Permit permit;
    private final KeyQuotas.Quota quota;
    private final long reservedTokens;
    private final RateLimitHeaders headers;
    private final AtomicBoolean released = new AtomicBoolean();

    Ticket(AdmissionGate.Permit permit, KeyQuotas.Quota quota, long reservedTokens,
        RateLimitHeaders headers) {
      this.permit = permit;
      this.quota = quota;
      this.reservedTokens = reservedTokens;
      this.headers = headers;
    }

    /** The key's limits after this reservation; null when the key has none. */
    public RateLimitHeaders headers() {
      return headers;
    }

    public long queuedNanos() {
      return permit.waitedNanos();
    }

    /**
     * Frees the slot and settles the tokens: {@code usedTokens} from the answer's usage, or -1
     * when unknown (the reservation then stands). Later calls do nothing.
     */
    public void release(long usedTokens) {
      if (released.compareAndSet(false, true)) {
        permit.release();
        if (quota != null) {
          quota.settle(reservedTokens, usedTokens);
        }
      }
    }
  }

  /** How often {@link #drain} looks whether the admitted requests have ended. */
  private static final long DRAIN_CHECK_MS = 20;

  private final Vertx vertx;
  private final AdmissionGate gate;
  private final KeyQuotas quotas;
  private final Consumer<String> rejected;
  private final int retryAfterSeconds;
  private volatile boolean draining;

  /** @param rejected told the reason of every refusal (RateLimited#reason), for the counters */
  public Admission(Vertx vertx, RouterOptions options, Consumer<String> rejected) {
    this.vertx = vertx;
    this.gate = new AdmissionGate(vertx, options.get(MAX_CONCURRENT), options.get(MAX_QUEUE),
        options.get(QUEUE_TIMEOUT).toMillis(), options.get(RETRY_AFTER_SECONDS));
    this.quotas = new KeyQuotas(options.get(KEY_RPM), options.get(KEY_TPM), System::nanoTime);
    this.rejected = rejected;
    this.retryAfterSeconds = options.get(RETRY_AFTER_SECONDS);
  }

  public AdmissionGate gate() {
    return gate;
  }

  /**
   * Admits a request of {@code key} that may take {@code tokenEstimate} tokens (prompt + n *
   * max_tokens); fails with {@link RateLimited} or, if the client left while it waited, with
   * ClientGoneException.
   */
  public Future<Ticket> admit(ClientKey key, long tokenEstimate, Cancellation cancellation) {
    if (draining) {
      return shuttingDown();
    }
    KeyQuotas.Quota quota = quotas.of(key);
    RateLimitHeaders headers;
    try {
      headers = quota.limited() ? quota.reserve(key, tokenEstimate) : null;
    } catch (RateLimited e) {
      rejected.accept(e.reason());
      return Future.failedFuture(e);
    }
    KeyQuotas.Quota held = quota.limited() ? quota : null;
    Future<AdmissionGate.Permit> acquired = gate.acquire(cancellation);
    if (acquired.succeeded()) { // nearly always a free slot: no future chain then
      if (draining) { // began to stop meanwhile, and may have counted no request running
        acquired.result().release();
        if (held != null) {
          held.cancel(tokenEstimate);
        }
        return shuttingDown();
      }
      return Future.succeededFuture(new Ticket(acquired.result(), held, tokenEstimate, headers));
    }
    return acquired.transform(ar -> {
      if (ar.succeeded()) {
        return Future.succeededFuture(new Ticket(ar.result(), held, tokenEstimate, headers));
      }
      if (held != null) {
        held.cancel(tokenEstimate);
      }
      if (ar.cause() instanceof RateLimited r) {
        rejected.accept(r.reason());
      }
      return Future.failedFuture(ar.cause());
    });
  }

  /**
   * Begins to stop: from now on every request is refused ({@link ShuttingDown}); completes once
   * no admitted request runs or waits for a slot, or when {@code timeout} has passed, with how
   * many still did then (0: all ended).
   */
  public Future<Integer> drain(Duration timeout) {
    draining = true; // before reading the counts: a request admitted after this read sees it
    long deadline = System.nanoTime() + timeout.toNanos();
    Promise<Integer> drained = Promise.promise();
    if (open() == 0 || timeout.isZero()) {
      drained.complete(open());
      return drained.future();
    }
    vertx.setPeriodic(DRAIN_CHECK_MS, id -> {
      int open = open();
      if (open == 0 || System.nanoTime() - deadline >= 0) {
        vertx.cancelTimer(id);
        drained.tryComplete(open);
      }
    });
    return drained.future();
  }

  /** Whether the router has begun to stop ({@link #drain}). */
  public boolean draining() {
    return draining;
  }

  /** Requests admitted and not yet ended: running, or waiting for a slot. */
  public int open() {
    return gate.running() + gate.queued();
  }

  private <T> Future<T> shuttingDown() {
    rejected.accept("shutting_down");
    return Future.failedFuture(new ShuttingDown(retryAfterSeconds));
  }
}
