package dev.tandem.router.admission;

import static dev.tandem.config.RouterOptions.MAX_CONCURRENT;
import static dev.tandem.config.RouterOptions.MAX_QUEUE;
import static dev.tandem.config.RouterOptions.RETRY_AFTER_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.config.RouterOptions;
import dev.tandem.router.access.ClientKey;
import dev.tandem.router.upstream.Cancellation;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A router that begins to stop: new requests are refused with a 503 and Retry-After, the running
 * and queued ones end as usual, and the drain completes when the last ends or its time is up.
 * The whole path (SIGTERM to a router process with a stream in flight) is RouterProcessIT's.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class AdmissionDrainTest {

  private static Admission admission(Vertx vertx, int maxConcurrent, List<String> rejected) {
    return new Admission(vertx, new RouterOptions().set(MAX_CONCURRENT, maxConcurrent)
        .set(MAX_QUEUE, 4).set(RETRY_AFTER_SECONDS, 2), rejected::add);
  }

  @Test
  void newRequestsAreRefusedWhileTheAdmittedOnesRunToTheirEnd(Vertx vertx, VertxTestContext ctx) {
    vertx.runOnContext(v -> {
      List<String> rejected = new ArrayList<>();
      Admission admission = admission(vertx, 1, rejected);
      Admission.Ticket running = admission.admit(ClientKey.ANONYMOUS, 10, new Cancellation()).result();
      Future<Admission.Ticket> queued = admission.admit(ClientKey.ANONYMOUS, 10, new Cancellation());
      Future<Integer> drained = admission.drain(Duration.ofSeconds(5));
      Future<Admission.Ticket> late = admission.admit(ClientKey.ANONYMOUS, 10, new Cancellation());
      ctx.verify(() -> {
        assertTrue(admission.draining());
        assertEquals(2, admission.open());
        ShuttingDown refused = assertInstanceOf(ShuttingDown.class, late.cause());
        assertEquals(503, refused.status());
        assertEquals("shutting_down", refused.code());
        assertEquals(2, refused.retryAfterSeconds());
        assertEquals(List.of("shutting_down"), rejected);
        assertFalse(queued.isComplete(), "the queued request waits for its slot as before");
      });
      running.release(5);
      ctx.verify(() -> assertTrue(queued.succeeded(), "admitted before the drain: it runs"));
      vertx.setTimer(100, t -> {
        ctx.verify(() -> assertFalse(drained.isComplete(), "one still runs"));
        queued.result().release(5);
        drained.onComplete(ctx.succeeding(left -> ctx.verify(() -> {
          assertEquals(0, left);
          assertEquals(0, admission.open());
          ctx.completeNow();
        })));
      });
    });
  }

  @Test
  void theDrainEndsAtItsTimeoutWithWhatStillRuns(Vertx vertx, VertxTestContext ctx) {
    vertx.runOnContext(v -> {
      Admission admission = admission(vertx, 0, new ArrayList<>());
      Admission.Ticket stuck = admission.admit(ClientKey.ANONYMOUS, 10, new Cancellation()).result();
      long t0 = System.nanoTime();
      admission.drain(Duration.ofMillis(200)).onComplete(ctx.succeeding(left -> ctx.verify(() -> {
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertEquals(1, left);
        assertTrue(ms >= 200 && ms < 2_000, ms + " ms");
        stuck.release(-1);
        ctx.completeNow();
      })));
    });
  }

  @Test
  void nothingInFlightDrainsAtOnce(Vertx vertx, VertxTestContext ctx) {
    vertx.runOnContext(v -> {
      Future<Integer> drained = admission(vertx, 0, new ArrayList<>()).drain(Duration.ofSeconds(30));
      ctx.verify(() -> assertEquals(0, drained.result()));
      ctx.completeNow();
    });
  }
}
