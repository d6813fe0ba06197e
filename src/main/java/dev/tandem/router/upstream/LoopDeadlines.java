package dev.tandem.router.upstream;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The stage timers of one event loop's engine calls ({@link CallGuard}): each armed timer is a
 * deadline in a list, and one task on the loop runs when the earliest deadline may have passed,
 * fires those that did and waits for the next. Nearly every call disarms its timer long before it
 * would fire, and a request arms and disarms two (the first chunk's, then the silence between
 * chunks), so arming is a field write and a link in the list, and disarming an unlink, instead
 * of a task added to and cancelled from Netty's scheduled-task queue (a heap reordered on each:
 * ~1% of the router's event loop with the task and its future allocated per arming). All
 * methods run on the loop's own thread ({@link #of} gives a thread only its own loop's list).
 */
final class LoopDeadlines {

  private static final FastThreadLocal<LoopDeadlines> LOOPS = new FastThreadLocal<>();

  /** Something with a deadline in a loop's list. */
  abstract static class Timed {
    private Timed prev;
    private Timed next;
    private long deadline;

    /** Whether it is in a list (armed and not yet fired or disarmed). */
    final boolean armed() {
      return next != null;
    }

    /** Its deadline passed; it is out of the list already. Runs on the loop. */
    abstract void expired();
  }

  private final EventExecutor loop;
  /** The list's sentinel: {@code head.next} the first armed entry, {@code head.prev} the last. */
  private final Timed head = new Timed() {
    @Override
    void expired() {
      throw new AssertionError("the sentinel never expires");
    }
  };
  private ScheduledFuture<?> sweep;
  /** When {@link #sweep} runs (System.nanoTime), valid while it is not null. */
  private long sweepAt;

  private LoopDeadlines(EventExecutor loop) {
    this.loop = loop;
    head.prev = head;
    head.next = head;
  }

  /** {@code loop}'s list when called on its thread; null on any other thread. */
  static LoopDeadlines of(EventExecutor loop) {
    if (!loop.inEventLoop()) {
      return null;
    }
    LoopDeadlines mine = LOOPS.get();
    if (mine == null || mine.loop != loop) {
      mine = new LoopDeadlines(loop);
      LOOPS.set(mine);
    }
    return mine;
  }

  /** (Re)arms {@code t} to expire {@code delayNanos} from now. */
  void arm(Timed t, long delayNanos) {
    long deadline = System.nanoTime() + delayNanos;
    t.deadline = deadline;
    if (t.next == null) {
      t.prev = head.prev;
      t.next = head;
      head.prev.next = t;
      head.prev = t;
    }
    if (sweep == null || deadline - sweepAt < 0) {
      sweepAt(deadline);
    }
  }

  /**
   * Takes {@code t} out of the list; nothing if it is not in it. Off the loop's thread (a call
   * ended from elsewhere), on the loop: the list is the loop's alone.
   */
  void disarm(Timed t) {
    if (!loop.inEventLoop()) {
      loop.execute(() -> disarm(t));
    } else if (t.next != null) {
      unlink(t);
    }
  }

  /** How many timers are armed (for tests). */
  int armedCount() {
    int n = 0;
    for (Timed t = head.next; t != head; t = t.next) {
      n++;
    }
    return n;
  }

  private static void unlink(Timed t) {
    t.prev.next = t.next;
    t.next.prev = t.prev;
    t.prev = null;
    t.next = null;
  }

  private void sweepAt(long deadline) {
    if (sweep != null) {
      sweep.cancel(false);
    }
    sweepAt = deadline;
    sweep = loop.schedule(this::sweep, Math.max(0, deadline - System.nanoTime()),
        TimeUnit.NANOSECONDS);
  }

  /**
   * Fires every timer whose deadline passed and waits for the earliest of the rest. Those that
   * fire are taken out first: firing one may arm or disarm others.
   */
  private void sweep() {
    sweep = null;
    long now = System.nanoTime();
    List<Timed> expired = null;
    boolean more = false;
    long next = 0;
    for (Timed t = head.next; t != head; ) {
      Timed after = t.next;
      if (t.deadline - now <= 0) {
        unlink(t);
        if (expired == null) {
          expired = new ArrayList<>(2);
        }
        expired.add(t);
      } else if (!more || t.deadline - next < 0) {
        more = true;
        next = t.deadline;
      }
      t = after;
    }
    if (more) {
      sweepAt(next);
    }
    if (expired != null) {
      for (Timed t : expired) {
        t.expired();
      }
    }
  }
}
