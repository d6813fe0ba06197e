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
 * <p>The stage timer is a task on the context's Netty event loop, not a Vert.x timer: nearly every
 * call cancels it, and Vert.x's timer map and close hooks made arming and cancelling ~2% of the
 * router's event loop. A firing timer runs on the context like any task.
 */
final class CallGuard {

  private final ContextInternal context;
  private final Consumer<Throwable> onFailure;
  private final Runnable unregisterCancel;
  private Runnable requestReset;
  private ScheduledFuture<?> timer;
  /** Which arming a firing timer belongs to: one cancelled too late must not fail the call. */
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
    disarmTimer();
    if (finished || millis <= 0) {
      return;
    }
    int armed = ++timerArmed;
    timer = context.nettyEventLoop().schedule(() -> context.runOnContext(v -> {
      if (timer == null || armed != timerArmed) {
        return; // disarmed or re-armed since
      }
      timer = null;
      Throwable cause = error.get();
      if (cause != null) {
        fail(cause);
      }
    }), millis, TimeUnit.MILLISECONDS);
  }

  void disarmTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
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
