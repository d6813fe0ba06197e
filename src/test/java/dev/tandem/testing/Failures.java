package dev.tandem.testing;

import io.vertx.core.Future;

/** For test chains that expect a step to fail and go on to look at the failure. */
public final class Failures {

  private Failures() {}

  /** Succeeds with {@code future}'s failure; fails with an AssertionError if it succeeded. */
  public static Future<Throwable> of(Future<?> future) {
    return future.transform(ar -> ar.failed() ? Future.succeededFuture(ar.cause())
        : Future.failedFuture(new AssertionError("expected a failure, got " + ar.result())));
  }
}
