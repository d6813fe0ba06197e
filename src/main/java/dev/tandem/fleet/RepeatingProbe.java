package dev.tandem.fleet;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import java.util.function.Supplier;

/**
 * An asynchronous probe run again {@code interval} after the previous run finished, so that two
 * runs never overlap however slow the engine answers. After {@link #stop()} no further run starts
 * and the result of a run still in flight is dropped, so a stopped loop never acts on the state of
 * a process it no longer watches. Used on one Vert.x context only.
 */
final class RepeatingProbe<T> {
  private final Vertx vertx;
  private final long intervalMs;
  private final Supplier<Future<T>> probe;
  private final Handler<AsyncResult<T>> onResult;
  private long timer = -1;
  private boolean stopped;

  private RepeatingProbe(Vertx vertx, long intervalMs, Supplier<Future<T>> probe,
      Handler<AsyncResult<T>> onResult) {
    this.vertx = vertx;
    this.intervalMs = intervalMs;
    this.probe = probe;
    this.onResult = onResult;
  }

  /**
   * Starts a loop: the first run after one interval, or at once when {@code now}; each result goes
   * to {@code onResult} (which may stop the loop) unless the loop was stopped meanwhile.
   */
  static <T> RepeatingProbe<T> start(Vertx vertx, long intervalMs, boolean now,
      Supplier<Future<T>> probe, Handler<AsyncResult<T>> onResult) {
    RepeatingProbe<T> loop = new RepeatingProbe<>(vertx, intervalMs, probe, onResult);
    if (now) {
      loop.run();
    } else {
      loop.schedule();
    }
    return loop;
  }

  void stop() {
    stopped = true;
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  private void schedule() {
    if (!stopped) {
      timer = vertx.setTimer(intervalMs, id -> {
        timer = -1;
        run();
      });
    }
  }

  private void run() {
    if (stopped) {
      return;
    }
    Future<T> result;
    try {
      result = probe.get();
    } catch (RuntimeException e) {
      result = Future.failedFuture(e);
    }
    result.onComplete(ar -> {
      if (!stopped) {
        onResult.handle(ar);
        schedule();
      }
    });
  }
}
