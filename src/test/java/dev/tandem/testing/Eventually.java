package dev.tandem.testing;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits without blocking for something a test cannot be told about: a check is retried on a
 * Vert.x timer until it holds, and the future fails with an AssertionError naming what was awaited
 * when the limit passes. For conditions that a handler can signal, use a VertxTestContext
 * checkpoint instead.
 */
public final class Eventually {
  private static final long POLL_MS = 20;

  private Eventually() {}

  /** Completes once {@code check} answers true; a failed check counts as "not yet". */
  public static Future<Void> until(Vertx vertx, Duration limit, String what,
      Supplier<Future<Boolean>> check) {
    return poll(vertx, check, System.nanoTime() + limit.toNanos(), limit, what, null);
  }

  /** Completes once {@code condition} holds (it runs on an event loop: keep it quick). */
  public static Future<Void> untilTrue(Vertx vertx, Duration limit, String what,
      BooleanSupplier condition) {
    return until(vertx, limit, what, () -> Future.succeededFuture(condition.getAsBoolean()));
  }

  private static Future<Void> poll(Vertx vertx, Supplier<Future<Boolean>> check, long deadline,
      Duration limit, String what, Throwable lastFailure) {
    Future<Boolean> answer;
    try {
      answer = check.get();
    } catch (RuntimeException | AssertionError e) {
      answer = Future.failedFuture(e);
    }
    return answer.transform(ar -> {
      if (ar.succeeded() && Boolean.TRUE.equals(ar.result())) {
        return Future.<Void>succeededFuture();
      }
      Throwable failure = ar.failed() ? ar.cause() : lastFailure;
      if (System.nanoTime() > deadline) {
        return Future.failedFuture(new AssertionError("timed out after " + limit.toMillis()
            + " ms waiting for " + what + (failure == null ? "" : "; last check failed: " + failure),
            failure));
      }
      return vertx.timer(POLL_MS).compose(t -> poll(vertx, check, deadline, limit, what, failure));
    });
  }
}
