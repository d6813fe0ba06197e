package dev.tandem.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@Timeout(value = 10, timeUnit = TimeUnit.SECONDS)
class RepeatingProbeTest {

  @Test
  void aSlowProbeNeverOverlapsItselfAndAStoppedLoopDropsTheLateResult(Vertx vertx,
      VertxTestContext ctx) {
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger runs = new AtomicInteger();
    AtomicInteger results = new AtomicInteger();
    vertx.runOnContext(v -> {
      AtomicReference<RepeatingProbe<Integer>> loop = new AtomicReference<>();
      loop.set(RepeatingProbe.start(vertx, 10, true, () -> {
        int n = runs.incrementAndGet();
        ctx.verify(() -> assertEquals(1, inFlight.incrementAndGet(), "runs overlap"));
        // each run takes five intervals
        return vertx.timer(50).map(t -> {
          inFlight.decrementAndGet();
          return n;
        });
      }, ar -> {
        results.incrementAndGet();
        if (ar.result() == 3) {
          // run 4 starts 10 ms after this result and takes 50 ms: stop in the middle of it
          vertx.setTimer(30, t -> loop.get().stop());
          vertx.setTimer(300, t -> ctx.verify(() -> {
            assertEquals(4, runs.get(), "no run after stop()");
            assertEquals(3, results.get(), "run 4's result came after stop(): dropped");
            ctx.completeNow();
          }));
        }
      }));
    });
  }

  @Test
  void aProbeThatThrowsCountsAsAFailedRun(Vertx vertx, VertxTestContext ctx) {
    vertx.runOnContext(v -> RepeatingProbe.<Void>start(vertx, 10, false, () -> {
      throw new IllegalStateException("boom");
    }, ar -> ctx.verify(() -> {
      assertTrue(ar.failed());
      assertEquals("boom", ar.cause().getMessage());
      ctx.completeNow();
    })));
  }
}
