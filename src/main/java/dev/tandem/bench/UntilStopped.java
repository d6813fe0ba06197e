package dev.tandem.bench;

import io.vertx.core.Vertx;
import java.util.concurrent.CountDownLatch;

/** How the benchmarks' helper servers run: until the process is stopped, then Vert.x closed. */
final class UntilStopped {

  private UntilStopped() {}

  static void await(Vertx vertx) throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      vertx.close().toCompletionStage().toCompletableFuture().join();
      stopped.countDown();
    }));
    stopped.await();
  }
}
