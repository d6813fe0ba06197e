package dev.tandem.router.upstream;

import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Ends one upstream HTTP call exactly once: success, failure, stage timeout or cancellation,
 * whichever comes first. On failure the request is reset (for HTTP/1.1 the connection is closed),
 * which is how an engine learns that nobody waits for its answer and aborts the request.
 *
 * <p>The stage timer is a deadline in its event loop's {@link LoopDeadlines}, not a Vert.x timer
 * nor a task of its own: nearly every call disarms it, and Vert.x's timer map and close hooks, then
 * Netty's scheduled-task queue, made arming and disarming 2%, then 1%, of the router's event loop.
 * Armed off its loop's thread (not the router's case), or with a length that has no lane there, it
 * is a task of its own on that loop. A firing timer runs on the context like any task.
 */
final class CallGuard extends LoopDeadlines.Timed {

  private final ContextInternal context;
  private final Consumer<Throwable> onFailure;
  private final Runnable unregisterCancel;
  private Runnable requestReset;
  /** The armed timer's verdict when it fires, or null when none is armed. */
  private Supplier<Throwable> timerError;
  /** The loop's deadlines the timer is in (armed on the loop), else its own task (armed off it). */
  private LoopDeadlines deadlines;
  private ScheduledFuture<?> timer;
  /**
   * Which arming a firing timer belongs to; every arming and disarming moves it on, so a firing
   * already on its way to the context when the timer was disarmed or re-armed does nothing.
   */
  private int timerArmed;
  private boolean finished;

  CallGuard(Vertx vertx, Cancellation cancel, Consumer<Throwable> onFailure) {
    this.context = (ContextInternal) vertx.getOrCreateContext();
    this.onFailure = onFailure;
    this.unregisterCancel = cancel.onCancel(() -> fail(new ClientGoneException()));
  }

  boolean finished() {
    return finished;
  }

  /** Binds the request's reset once it is sent; resets it at once if the call already ended. */
  void attach(Runnable requestReset) {
    this.requestReset = requestReset;
    if (finished) {
      requestReset.run();
    }
  }

  /**
   * (Re)starts the stage timer; when it fires the call fails with {@code error}'s result, unless
   * that is null (the supplier decided the call is fine, and may have armed a new timer).
   */
  void armTimer(long millis, Supplier<Throwable> error) {
    armTimer(millis, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis), error);
  }

  /**
   * As {@link #armTimer(long, Supplier)} for a timeout {@code lengthMillis} long that started
   * before now: it fires at {@code deadlineNanos} (System.nanoTime, at most that length from now).
   */
  void armTimer(long lengthMillis, long deadlineNanos, Supplier<Throwable> error) {
    disarmTimer();
    if (finished || lengthMillis <= 0) {
      return;
    }
    timerError = error;
    int armed = timerArmed;
    if (deadlines == null) {
      deadlines = LoopDeadlines.of(context.nettyEventLoop());
    }
    if (deadlines == null
        || !deadlines.arm(this, TimeUnit.MILLISECONDS.toNanos(lengthMillis), deadlineNanos)) {
      timer = context.nettyEventLoop().schedule(() -> fire(armed),
          Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
  }

  void disarmTimer() {
    timerArmed++;
    timerError = null;
    if (deadlines != null) {
      deadlines.disarm(this);
    }
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  @Override
  void expired() {
    fire(timerArmed);
  }

  /** The timer of arming {@code armed} fired: asks its verdict on the context. */
  private void fire(int armed) {
    context.runOnContext(v -> {
      if (armed != timerArmed || timerError == null) {
        return; // disarmed or re-armed since
      }
      Supplier<Throwable> error = timerError;
      timerError = null;
      timer = null;
      Throwable cause = error.get(); // may arm the timer again
      if (cause != null) {
        fail(cause);
      }
    });
  }

  /** Successful end: stops the timer and the cancellation hook. */
  void done() {
    if (!finished) {
      finished = true;
      disarmTimer();
      unregisterCancel.run();
    }
  }

  /** Fails the call and resets the request, unless it already ended. */
  void fail(Throwable cause) {
    fail(cause, true);
  }

  void fail(Throwable cause, boolean reset) {
    if (finished) {
      return;
    }
    finished = true;
    disarmTimer();
    unregisterCancel.run();
    if (reset && requestReset != null) {
      requestReset.run();
    }
    onFailure.accept(cause);
  }
}
