package dev.tandem.router.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.router.upstream.Cancellation;
import dev.tandem.router.upstream.ClientGoneException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class AdmissionGateTest {

  @Test
  void slotsThenQueueThen429AndEveryReleaseHandsOn(Vertx vertx, VertxTestContext ctx) {
    vertx.runOnContext(v -> {
      AdmissionGate gate = new AdmissionGate(vertx, 2, 2, 5_000, 3);
      List<Future<AdmissionGate.Permit>> got = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        got.add(gate.acquire(new Cancellation()));
      }
      ctx.verify(() -> {
        assertTrue(got.get(0).succeeded() && got.get(1).succeeded());
        assertTrue(!got.get(2).isComplete() && !got.get(3).isComplete(), "queued");
        RateLimited full = assertInstanceOf(RateLimited.class, got.get(4).cause());
        assertEquals("queue_full", full.reason());
        assertEquals(3, full.retryAfterSeconds());
        assertEquals(2, gate.running());
        assertEquals(2, gate.queued());
      });
      got.get(0).result().release();
      got.get(0).result().release(); // idempotent
      ctx.verify(() -> {
        assertTrue(got.get(2).succeeded(), "the first waiter got the slot");
        assertTrue(!got.get(3).isComplete());
        assertEquals(2, gate.running());
        assertEquals(1, gate.queued());
      });
      got.get(1).result().release();
      got.get(2).result().release();
      got.get(3).result().release();
      ctx.verify(() -> {
        assertEquals(0, gate.running());
        assertEquals(0, gate.queued());
      });
      ctx.completeNow();
    });
  }

  @Test
  void aWaiterTimesOutOrLeavesWithItsClient(Vertx vertx, VertxTestContext ctx) {
    vertx.runOnContext(v -> {
      AdmissionGate gate = new AdmissionGate(vertx, 1, 5, 200, 1);
      AdmissionGate.Permit held = gate.acquire(new Cancellation()).result();
      Cancellation leaving = new Cancellation();
      Future<AdmissionGate.Permit> gone = gate.acquire(leaving);
      Future<AdmissionGate.Permit> late = gate.acquire(new Cancellation());
      leaving.cancel();
      ctx.verify(() -> {
        assertInstanceOf(ClientGoneException.class, gone.cause());
        assertEquals(1, gate.queued());
      });
      late.onComplete(ar -> ctx.verify(() -> {
        RateLimited r = assertInstanceOf(RateLimited.class, ar.cause());
        assertEquals("queue_timeout", r.reason());
        assertEquals(0, gate.queued());
        held.release();
        assertEquals(0, gate.running());
        ctx.completeNow();
      }));
    });
  }

  @Test
  void aSlotFreedOnAnotherEventLoopResumesTheWaiterOnItsOwn(Vertx vertx, VertxTestContext ctx) {
    // the router's HTTP loops share one gate: a request waits on the loop it arrived on
    AdmissionGate gate = new AdmissionGate(vertx, 1, 1, 5_000, 1);
    // two contexts on two event loops (getOrCreateContext would give this thread's one context)
    ContextInternal waiterLoop = ((VertxInternal) vertx).createEventLoopContext();
    ContextInternal releaserLoop = ((VertxInternal) vertx).createEventLoopContext();
    for (int i = 0; i < 8 && releaserLoop.nettyEventLoop() == waiterLoop.nettyEventLoop(); i++) {
      releaserLoop = ((VertxInternal) vertx).createEventLoopContext();
    }
    ContextInternal releaser = releaserLoop;
    assertTrue(releaser.nettyEventLoop() != waiterLoop.nettyEventLoop(), "one event loop only");
    releaser.runOnContext(v -> {
      AdmissionGate.Permit held = gate.acquire(new Cancellation()).result();
      waiterLoop.runOnContext(w -> {
        Thread waiterThread = Thread.currentThread();
        gate.acquire(new Cancellation()).onComplete(ctx.succeeding(p -> ctx.verify(() -> {
          assertTrue(Thread.currentThread() == waiterThread, "resumed on "
              + Thread.currentThread().getName() + ", not on " + waiterThread.getName());
          assertEquals(1, gate.running());
          assertEquals(0, gate.queued());
          p.release();
          assertEquals(0, gate.running());
          ctx.completeNow();
        })));
        releaser.runOnContext(r -> {
          assertEquals(1, gate.queued());
          held.release();
        });
      });
    });
  }

  @Test
  void noLimitMeansNoQueue(Vertx vertx, VertxTestContext ctx) {
    vertx.runOnContext(v -> {
      AdmissionGate gate = new AdmissionGate(vertx, 0, 0, 100, 1);
      List<AdmissionGate.Permit> permits = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        permits.add(gate.acquire(new Cancellation()).result());
      }
      ctx.verify(() -> assertEquals(100, gate.running()));
      permits.forEach(AdmissionGate.Permit::release);
      permits.get(0).release(); // idempotent without a limit too
      ctx.verify(() -> assertEquals(0, gate.running()));
      ctx.completeNow();
    });
  }

  @Test
  void tryAcquireTakesAFreeSlotOrChangesNothing(Vertx vertx, VertxTestContext ctx) {
    vertx.runOnContext(v -> {
      AdmissionGate gate = new AdmissionGate(vertx, 1, 1, 5_000, 1);
      AdmissionGate.Permit first = gate.tryAcquire();
      ctx.verify(() -> {
        assertTrue(first != null && first.waitedNanos() == 0);
        assertEquals(null, gate.tryAcquire(), "full: no slot, and not queued");
        assertEquals(1, gate.running());
        assertEquals(0, gate.queued());
      });
      first.release();
      ctx.verify(() -> assertEquals(0, gate.running()));
      ctx.completeNow();
    });
  }
}
