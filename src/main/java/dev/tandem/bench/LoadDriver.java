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
  /** Conversation mode: next conversation, turns planned so far, turns waiting out a think time. */
  private long nextConversation;
  private long plannedTurns;
  private int pendingTurns;

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
    MultiTurn mt = options.workload().multiTurn();
    if (mt != null) {
      if (options.openLoop()) {
        arrivals = new PoissonArrivals(options.rate() / mt.turns(), options.workload().seed());
        nextArrivalNanos = runStart + arrivals.next();
        conversationTick();
      } else {
        for (int i = 0; i < options.concurrency() && mayStartConversation(System.nanoTime()); i++) {
          startConversation();
        }
        finishIfIdle();
      }
      return done.future();
    }
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

  private void conversationTick() {
    long now = System.nanoTime();
    while (nextArrivalNanos <= now) {
      if (!mayStartConversation(nextArrivalNanos)) {
        finishIfIdle();
        return;
      }
      startConversation();
      nextArrivalNanos = runStart + arrivals.next();
    }
    long delayMillis = Math.max(1, (nextArrivalNanos - now + 999_999) / 1_000_000);
    vertx.setTimer(delayMillis, id -> conversationTick());
  }

  /** Conversations start while the run still wants requests (by count: all turns planned). */
  private boolean mayStartConversation(long now) {
    if (!issuing) {
      return false;
    }
    if (options.requests() > 0) {
      issuing = plannedTurns < options.warmupRequests() + options.requests();
      return issuing;
    }
    return mayIssue(now);
  }

  private void startConversation() {
    long c = nextConversation++;
    plannedTurns += workload.turnsOf(c);
    issueTurn(c, 0);
  }

  private void issueTurn(long conversation, int turn) {
    int turns = options.workload().multiTurn().turns();
    PlannedRequest request = workload.request(conversation * turns + turn);
    long now = System.nanoTime();
    boolean warmup = options.warmupRequests() > 0
        ? conversation * turns < options.warmupRequests()
        : now - runStart < (long) (options.warmupSeconds() * 1e9);
    if (!warmup) {
      measuredIssued++;
      if (measureStart == 0) {
        measureStart = now;
      }
    }
    inFlight++;
    progress.issued();
    client.send(request, warmup).onComplete(ar -> {
      completed(ar.result(), false);
      if (turn + 1 < workload.turnsOf(conversation)) {
        pendingTurns++;
        long think = Math.max(1, Math.round(options.workload().multiTurn().thinkSeconds() * 1000));
        vertx.setTimer(think, id -> {
          pendingTurns--;
          issueTurn(conversation, turn + 1);
        });
      } else if (!options.openLoop() && mayStartConversation(System.nanoTime())) {
        startConversation();
      }
      finishIfIdle();
    });
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
    client.send(request, warmup).onComplete(ar -> completed(ar.result(), true));
  }

  private void completed(RequestOutcome outcome, boolean issueNext) {
    inFlight--;
    outcomes.add(outcome);
    if (!outcome.warmup()) {
      measureEnd = Math.max(measureEnd, outcome.endNanos());
    }
    progress.completed(outcome, inFlight);
    if (issueNext) {
      if (!options.openLoop() && mayIssue(System.nanoTime())) {
        issue();
      }
      finishIfIdle();
    }
  }

  private void finishIfIdle() {
    if (inFlight == 0 && pendingTurns == 0 && !issuing) {
      long end = System.nanoTime();
      progress.stop();
      done.tryComplete(new RunRecord(outcomes, runStart, end, measureStart, Math.max(measureEnd, measureStart)));
    }
  }
}
