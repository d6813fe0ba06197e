package dev.tandem.router.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

/** One event loop's deadlines on a real Vert.x event loop: what fires, when, and what not. */
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

  /** Arms {@code t} for a timeout of {@code ms} from now. */
  private static void arm(LoopDeadlines d, LoopDeadlines.Timed t, long ms) {
    long length = TimeUnit.MILLISECONDS.toNanos(ms);
    assertTrue(d.arm(t, length, System.nanoTime() + length));
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
      arm(d, slow, 300);
      arm(d, disarmed, 50);
      arm(d, rearmed, 20);
      arm(d, fast, 100); // later than the earliest: no new sweep
      d.disarm(disarmed);
      arm(d, rearmed, 200); // moved later: its first time passes
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
      arm(d, late, 5_000);
      arm(d, early, 30); // before the sweep planned for "late"
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
          arm(list[0], this, 10);
        }
      }
    };
    onLoop(d -> {
      list[0] = d;
      arm(d, again, 10);
      return null;
    });
    waitFor(3);
    Thread.sleep(50);
    assertEquals(List.of("round 1", "round 2", "round 3"), fired);
  }

  @Test
  void aTimeoutThatStartedEarlierTakesItsPlaceInItsLane() throws Exception {
    Named armedFirst = new Named("armed first");
    Named startedEarlier = new Named("started earlier");
    onLoop(d -> {
      long length = TimeUnit.MILLISECONDS.toNanos(300);
      long now = System.nanoTime();
      assertTrue(d.arm(armedFirst, length, now + length));
      // the same length, begun 200 ms ago (a silence measured from the last data): due first
      assertTrue(d.arm(startedEarlier, length, now + length - TimeUnit.MILLISECONDS.toNanos(200)));
      return null;
    });
    waitFor(2);
    assertEquals(List.of("started earlier", "armed first"), fired);
    assertTrue(startedEarlier.firedAfterMs < 290, "at its own deadline: "
        + startedEarlier.firedAfterMs);
  }

  @Test
  void aLengthBeyondTheLanesIsRefusedAndLeavesTheTimerDisarmed() throws Exception {
    Named extra = new Named("extra");
    onLoop(d -> {
      for (int i = 0; i < LoopDeadlines.MAX_LANES; i++) {
        arm(d, new Named("lane " + i), 60_000 + i);
      }
      arm(d, extra, 60_000); // a lane of this length exists
      assertEquals(LoopDeadlines.MAX_LANES + 1, d.armedCount());
      long length = TimeUnit.MILLISECONDS.toNanos(1);
      assertFalse(d.arm(extra, length, System.nanoTime() + length), "no lane left for 1 ms");
      assertEquals(LoopDeadlines.MAX_LANES, d.armedCount(), "refused: disarmed");
      return null;
    });
    Thread.sleep(50);
    assertEquals(List.of(), fired);
  }

  @Test
  void aThreadGetsOnlyItsOwnLoopsList() throws Exception {
    assertNull(LoopDeadlines.of(loop), "not on the loop's thread");
    LoopDeadlines first = onLoop(d -> d);
    assertSame(first, onLoop(d -> d), "one list per loop");
    long length = TimeUnit.MILLISECONDS.toNanos(10);
    assertFalse(first.arm(new Named("off the loop"), length, System.nanoTime() + length),
        "a list kept and used off its loop's thread refuses");
    assertEquals(Integer.valueOf(0), onLoop(d -> d.armedCount()));
  }
}
