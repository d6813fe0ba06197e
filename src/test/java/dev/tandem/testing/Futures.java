package dev.tandem.testing;

import io.vertx.core.Future;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Blocking waits on Vert.x futures for tests that drive verticles from the test thread. */
public final class Futures {

  /** Longer than any fleet start in the tests; the test classes' own timeouts are shorter. */
  private static final long WAIT_SECONDS = 150;

  private Futures() {}

  /** The future's result; a failure becomes an AssertionError with the cause. */
  public static <T> T await(Future<T> future) throws Exception {
    try {
      return future.toCompletionStage().toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("failed: " + e.getCause(), e.getCause());
    }
  }

  /** The future's failure; success is an AssertionError. */
  public static Throwable awaitFailure(Future<?> future) throws Exception {
    try {
      future.toCompletionStage().toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("expected a failure");
  }
}
