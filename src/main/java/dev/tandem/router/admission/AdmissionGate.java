package dev.tandem.router.admission;

import dev.tandem.router.upstream.Cancellation;
import dev.tandem.router.upstream.ClientGoneException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * At most {@code maxConcurrent} requests running, at most {@code maxQueue} waiting in arrival
 * order for up to {@code queueTimeoutMs}; beyond that a {@link RateLimited} 429. A waiter leaves
 * the queue when it is given a slot, when its time is up, or when its client goes away. Every
 * {@link Permit} is released exactly once ({@link Permit#release()} is idempotent) and hands its
 * slot straight to the first waiter, so nothing admitted waits for a slot that is free.
 * {@code maxConcurrent} 0: no limit (and no queue), and the running count is an atomic counter
 * that takes no lock. Shared by the router's event loops: with a limit, the count and the queue are
 * under the gate's lock, and a waiter is resumed on the context it asked from.
 */
public final class AdmissionGate {

  /** One running slot; release it however the request ends. */
  public final class Permit {
    private final long waitedNanos;
    private boolean released;

    private Permit(long waitedNanos) {
      this.waitedNanos = waitedNanos;
    }

    /** Time spent in the queue (0 when a slot was free at once). */
    public long waitedNanos() {
      return waitedNanos;
    }

    public void release() {
      if (maxConcurrent == 0) {
        if (!released) {
          released = true;
          unlimited.decrementAndGet();
        }
        return;
      }
      Waiter next;
      synchronized (AdmissionGate.this) {
        if (released) {
          return;
        }
        released = true;
        next = queue.pollFirst();
        if (next == null) {
          running--;
          return;
        }
      }
      // The slot passes to the waiter (running stays the same), on the waiter's own event loop:
      // its timer, its client's cancellation and its request are that loop's.
      Permit permit = new Permit(System.nanoTime() - next.since);
      if (Vertx.currentContext() == next.context) {
        next.handOver(permit);
      } else {
        next.context.runOnContext(v -> next.handOver(permit));
      }
    }
  }

  private final class Waiter {
    /** The context that asked: the router's event loop the request runs on. */
    final Context context = vertx.getOrCreateContext();
    final Promise<Permit> promise = Promise.promise();
    final long since = System.nanoTime();
    long timer = -1;
    Runnable unhook = () -> {};

    void leave() {
      if (timer >= 0) {
        vertx.cancelTimer(timer);
      }
      unhook.run();
    }

    void handOver(Permit permit) {
      leave();
      promise.complete(permit);
    }
  }

  private final Vertx vertx;
  private final int maxConcurrent;
  private final int maxQueue;
  private final long queueTimeoutMs;
  private final int retryAfterSeconds;
  private final Deque<Waiter> queue = new ArrayDeque<>();
  private int running;
  /** Requests running when there is no limit: counted without the lock (no queue to hand to). */
  private final AtomicInteger unlimited = new AtomicInteger();

  public AdmissionGate(Vertx vertx, int maxConcurrent, int maxQueue, long queueTimeoutMs,
      int retryAfterSeconds) {
    this.vertx = vertx;
    this.maxConcurrent = maxConcurrent;
    this.maxQueue = maxQueue;
    this.queueTimeoutMs = queueTimeoutMs;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /**
   * A slot now, or after waiting in the queue; fails with {@link RateLimited} (queue full, waited
   * too long) or {@link ClientGoneException} (cancelled while waiting).
   */
  public Future<Permit> acquire(Cancellation cancellation) {
    Permit now = tryAcquire();
    if (now != null) {
      return Future.succeededFuture(now);
    }
    Waiter w;
    synchronized (this) {
      if (running < maxConcurrent) {
        running++;
        return Future.succeededFuture(new Permit(0));
      }
      if (queue.size() >= maxQueue) {
        return Future.failedFuture(new RateLimited("queue_full", "the router is at its limit of "
            + maxConcurrent + " running and " + maxQueue + " waiting requests; try again later",
            retryAfterSeconds, null));
      }
      w = new Waiter();
      queue.addLast(w);
    }
    w.timer = vertx.setTimer(queueTimeoutMs, id -> leave(w, new RateLimited("queue_timeout",
        "waited " + queueTimeoutMs + " ms for one of the router's " + maxConcurrent
            + " request slots; try again later", retryAfterSeconds, null)));
    w.unhook = cancellation.onCancel(() -> leave(w, new ClientGoneException()));
    return w.promise.future();
  }

  /**
   * A slot if one is free now (always, without a limit: then no lock is taken), else null and
   * nothing changed: {@link #acquire} queues.
   */
  public Permit tryAcquire() {
    if (maxConcurrent == 0) {
      unlimited.incrementAndGet();
      return new Permit(0);
    }
    synchronized (this) {
      if (running < maxConcurrent) { // (with a queue, every slot is taken: release hands it on)
        running++;
        return new Permit(0);
      }
    }
    return null;
  }

  /** Takes a waiter out of the queue and fails it, unless it already got its slot. */
  private void leave(Waiter w, Throwable why) {
    synchronized (this) {
      if (!queue.remove(w)) {
        return;
      }
    }
    w.leave();
    w.promise.fail(why);
  }

  public int running() {
    if (maxConcurrent == 0) {
      return unlimited.get();
    }
    synchronized (this) {
      return running;
    }
  }

  public synchronized int queued() {
    return queue.size();
  }

  public int maxConcurrent() {
    return maxConcurrent;
  }

  public int maxQueue() {
    return maxQueue;
  }
}
