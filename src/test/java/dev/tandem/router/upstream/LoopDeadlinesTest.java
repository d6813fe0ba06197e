package dev.tandem.router.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.internal.ContextInternal;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One event loop's deadline list on a real Vert.x event loop: what fires, when, and what not. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LoopDeadlinesTest {

  private Vertx vertx;
  private EventExecutor loop;
  private final List<String> fired = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() {
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    loop = ((ContextInternal) vertx.getOrCreateContext()).nettyEventLoop();
  }

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  /** A timer that notes its name and when it fired. */
  private final class Named extends LoopDeadlines.Timed {
    final String name;
    final long armedAt = System.nanoTime();
    volatile long firedAfterMs = -1;

    Named(String name) {
      this.name = name;
    }

    @Override
    void expired() {
      assertTrue(loop.inEventLoop(), "fires on its loop");
      firedAfterMs = (System.nanoTime() - armedAt) / 1_000_000;
      fired.add(name);
    }
  }

  private <T> T onLoop(Function<LoopDeadlines, T> work) throws Exception {
    CompletableFuture<T> done = new CompletableFuture<>();
    loop.execute(() -> {
      try {
        done.complete(work.apply(LoopDeadlines.of(loop)));
      } catch (Throwable e) {
        done.completeExceptionally(e);
      }
    });
    return done.get(10, TimeUnit.SECONDS);
  }

  private void waitFor(int count) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (fired.size() < count && System.nanoTime() < until) {
      Thread.sleep(5);
    }
  }

  @Test
  void firesEachDeadlineOnceInOrderAndNeverADisarmedOne() throws Exception {
    Named slow = new Named("slow");
    Named fast = new Named("fast");
    Named disarmed = new Named("disarmed");
    Named rearmed = new Named("rearmed");
    onLoop(d -> {
      d.arm(slow, TimeUnit.MILLISECONDS.toNanos(300));
      d.arm(disarmed, TimeUnit.MILLISECONDS.toNanos(50));
      d.arm(rearmed, TimeUnit.MILLISECONDS.toNanos(20));
      d.arm(fast, TimeUnit.MILLISECONDS.toNanos(100)); // later than the earliest: no new sweep
      d.disarm(disarmed);
      d.arm(rearmed, TimeUnit.MILLISECONDS.toNanos(200)); // moved later: its first time passes
      assertEquals(3, d.armedCount());
      return null;
    });
    waitFor(3);
    Thread.sleep(100); // anything more would fire now
    assertEquals(List.of("fast", "rearmed", "slow"), fired);
    assertTrue(fast.firedAfterMs >= 100, "not early: " + fast.firedAfterMs);
    assertTrue(rearmed.firedAfterMs >= 200, "re-armed, not at its first deadline: "
        + rearmed.firedAfterMs);
    assertTrue(slow.firedAfterMs >= 300 && slow.firedAfterMs < 3_000, "on time: " + slow.firedAfterMs);
    assertEquals(Integer.valueOf(0), onLoop(d -> d.armedCount()), "fired timers leave the list");
  }

  @Test
  void anEarlierDeadlineArmedLaterStillFiresOnTime() throws Exception {
    Named late = new Named("late");
    Named early = new Named("early");
    onLoop(d -> {
      d.arm(late, TimeUnit.SECONDS.toNanos(5));
      d.arm(early, TimeUnit.MILLISECONDS.toNanos(30)); // before the sweep planned for "late"
      return null;
    });
    waitFor(1);
    assertEquals(List.of("early"), fired);
    assertTrue(early.firedAfterMs < 2_000, "did not wait for the later deadline's sweep: "
        + early.firedAfterMs);
    assertEquals(Integer.valueOf(0), onLoop(d -> {
      d.disarm(late);
      d.disarm(late); // twice: nothing
      return d.armedCount();
    }));
  }

  @Test
  void aTimerArmedAgainFromItsOwnFiringFiresAgain() throws Exception {
    LoopDeadlines[] list = new LoopDeadlines[1];
    int[] rounds = {0};
    LoopDeadlines.Timed again = new LoopDeadlines.Timed() {
      @Override
      void expired() {
        fired.add("round " + ++rounds[0]);
        if (rounds[0] < 3) {
          list[0].arm(this, TimeUnit.MILLISECONDS.toNanos(10));
        }
      }
    };
    onLoop(d -> {
      list[0] = d;
      d.arm(again, TimeUnit.MILLISECONDS.toNanos(10));
      return null;
    });
    waitFor(3);
    Thread.sleep(50);
    assertEquals(List.of("round 1", "round 2", "round 3"), fired);
  }

  @Test
  void aThreadGetsOnlyItsOwnLoopsList() throws Exception {
    assertNull(LoopDeadlines.of(loop), "not on the loop's thread");
    LoopDeadlines first = onLoop(d -> d);
    assertSame(first, onLoop(d -> d), "one list per loop");
  }
}
