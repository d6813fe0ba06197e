package dev.tandem.router.upstream;

import io.vertx.core.Vertx;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Ends one upstream HTTP call exactly once: success, failure, stage timeout or cancellation,
 * whichever comes first. On failure the request is reset (for HTTP/1.1 the connection is closed),
 * which is how an engine learns that nobody waits for its answer and aborts the request.
 */
final class CallGuard {

  private final Vertx vertx;
  private final Consumer<Throwable> onFailure;
  private final Runnable unregisterCancel;
  private Runnable requestReset;
  private long timerId = -1;
  private boolean finished;

  CallGuard(Vertx vertx, Cancellation cancel, Consumer<Throwable> onFailure) {
    this.vertx = vertx;
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
    long id = vertx.setTimer(millis, fired -> {
      if (timerId != fired) {
        return;
      }
      timerId = -1;
      Throwable cause = error.get();
      if (cause != null) {
        fail(cause);
      }
    });
    timerId = id;
  }

  void disarmTimer() {
    if (timerId >= 0) {
      vertx.cancelTimer(timerId);
      timerId = -1;
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
