package dev.tandem.router.metrics;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The router's own counters, shown on its {@code /metrics} page next to the per-engine in-flight
 * gauges. One instance per router verticle.
 */
public final class RouterMetrics {

  private final AtomicLong requests = new AtomicLong();
  private final Map<Integer, AtomicLong> responsesByStatus = new TreeMap<>();
  private final AtomicLong engineRetries = new AtomicLong();
  private final AtomicLong preemptResumes = new AtomicLong();
  private final AtomicLong resumeAttemptsContinued = new AtomicLong();
  private final AtomicLong resumeAttemptsReplayed = new AtomicLong();
  private final AtomicLong clientsGone = new AtomicLong();
  private final AtomicLong reservationsOpen = new AtomicLong();
  private final AtomicLong reservationsReleased = new AtomicLong();
  private final AtomicLong releaseFailures = new AtomicLong();

  public void requestStarted() {
    requests.incrementAndGet();
  }

  /** Counts a finished request by the status the client saw (499 for a client that left). */
  public synchronized void requestEnded(int status) {
    responsesByStatus.computeIfAbsent(status, s -> new AtomicLong()).incrementAndGet();
    if (status == 499) {
      clientsGone.incrementAndGet();
    }
  }

  public void engineRetry() {
    engineRetries.incrementAndGet();
  }

  public void preemptResume() {
    preemptResumes.incrementAndGet();
  }

  /** A resumption attempt started: a continuation from delivered tokens, or a replay. */
  public void resumeAttempt(boolean replay) {
    (replay ? resumeAttemptsReplayed : resumeAttemptsContinued).incrementAndGet();
  }

  public long resumeAttemptsContinued() {
    return resumeAttemptsContinued.get();
  }

  public long resumeAttemptsReplayed() {
    return resumeAttemptsReplayed.get();
  }

  public void reservationOpened() {
    reservationsOpen.incrementAndGet();
  }

  /** A reservation left D: consumed by start_generate or released explicitly. */
  public void reservationClosed(boolean releasedExplicitly, boolean releaseFailed) {
    reservationsOpen.decrementAndGet();
    if (releasedExplicitly) {
      reservationsReleased.incrementAndGet();
    }
    if (releaseFailed) {
      releaseFailures.incrementAndGet();
    }
  }

  public long requests() {
    return requests.get();
  }

  public synchronized Map<Integer, Long> responsesByStatus() {
    Map<Integer, Long> out = new TreeMap<>();
    responsesByStatus.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  public long engineRetries() {
    return engineRetries.get();
  }

  public long preemptResumes() {
    return preemptResumes.get();
  }

  public long clientsGone() {
    return clientsGone.get();
  }

  public long reservationsOpen() {
    return reservationsOpen.get();
  }

  public long reservationsReleased() {
    return reservationsReleased.get();
  }

  public long releaseFailures() {
    return releaseFailures.get();
  }
}
