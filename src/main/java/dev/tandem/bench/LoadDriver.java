package dev.tandem.bench;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;

/**
 * Issues a run's requests in a closed loop (a fixed number always in flight) or an open loop
 * (Poisson arrivals at absolute target times, so timer lateness never lowers the offered load),
 * tags warm-up requests, and completes when the last request has ended. Not thread-safe: all its
 * methods run on the event loop of the context that calls {@link #run()}.
 */
public final class LoadDriver {

  private final Vertx vertx;
  private final BenchOptions options;
  private final CompletionClient client;
  private final WorkloadGenerator workload;
  private final ProgressLine progress;
  private final List<RequestOutcome> outcomes = new ArrayList<>();
  private final Promise<RunRecord> done = Promise.promise();
  private PoissonArrivals arrivals;
  private long nextArrivalNanos;
  private long runStart;
  private long measureStart;
  private long measureEnd;
  private long nextIndex;
  private long measuredIssued;
  private int inFlight;
  private boolean issuing = true;

  public LoadDriver(Vertx vertx, BenchOptions options, CompletionClient client, WorkloadGenerator workload,
      ProgressLine progress) {
    this.vertx = vertx;
    this.options = options;
    this.client = client;
    this.workload = workload;
    this.progress = progress;
  }

  /** Starts the run; call on the client's context. */
  public Future<RunRecord> run() {
    runStart = System.nanoTime();
    progress.start(runStart);
    if (options.openLoop()) {
      arrivals = new PoissonArrivals(options.rate(), options.workload().seed());
      nextArrivalNanos = runStart + arrivals.next();
      openLoopTick();
    } else {
      for (int i = 0; i < options.concurrency() && mayIssue(System.nanoTime()); i++) {
        issue();
      }
      finishIfIdle();
    }
    return done.future();
  }

  private void openLoopTick() {
    long now = System.nanoTime();
    while (nextArrivalNanos <= now) {
      if (!mayIssue(nextArrivalNanos)) {
        finishIfIdle();
        return;
      }
      issue();
      nextArrivalNanos = runStart + arrivals.next();
    }
    long delayMillis = Math.max(1, (nextArrivalNanos - now + 999_999) / 1_000_000);
    vertx.setTimer(delayMillis, id -> openLoopTick());
  }

  private boolean mayIssue(long now) {
    if (!issuing) {
      return false;
    }
    boolean more;
    if (options.requests() > 0) {
      more = measuredIssued < options.requests();
    } else {
      // Duration counts from the first measured request (after warm-up), or the run's start.
      long from = measureStart != 0 ? measureStart : runStart + (long) (options.warmupSeconds() * 1e9);
      more = now < from + (long) (options.durationSeconds() * 1e9);
    }
    issuing = more;
    return more;
  }

  private void issue() {
    long index = nextIndex++;
    PlannedRequest request = workload.request(index);
    long now = System.nanoTime();
    boolean warmup = options.warmupRequests() > 0
        ? index < options.warmupRequests()
        : now - runStart < (long) (options.warmupSeconds() * 1e9);
    if (!warmup) {
      measuredIssued++;
      if (measureStart == 0) {
        measureStart = now;
      }
    }
    inFlight++;
    progress.issued();
    client.send(request, warmup).onComplete(ar -> completed(ar.result()));
  }

  private void completed(RequestOutcome outcome) {
    inFlight--;
    outcomes.add(outcome);
    if (!outcome.warmup()) {
      measureEnd = Math.max(measureEnd, outcome.endNanos());
    }
    progress.completed(outcome, inFlight);
    if (!options.openLoop() && mayIssue(System.nanoTime())) {
      issue();
    }
    finishIfIdle();
  }

  private void finishIfIdle() {
    if (inFlight == 0 && !issuing) {
      long end = System.nanoTime();
      progress.stop();
      done.tryComplete(new RunRecord(outcomes, runStart, end, measureStart, Math.max(measureEnd, measureStart)));
    }
  }
}
