package dev.tandem.router.upstream;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The stage timers of one event loop's engine calls ({@link CallGuard}), kept as deadlines in
 * lanes, one lane per timeout length (the first chunk's, the silence between chunks', each
 * MicroServing call's), each lane in deadline order, and one task on the loop that runs when the
 * earliest deadline of all lanes comes. Nearly every call disarms its timer long before it would
 * fire, and a request arms and disarms two, so arming is a field write and an append to its lane
 * (deadlines of one length come in the order they were armed), disarming an unlink, and the task
 * looks only at the lanes' first entries: instead of a task added to and cancelled from Netty's
 * scheduled-task queue (a heap reordered on each, with the task and its future allocated per
 * arming: ~1% of the router's event loop). All methods run on the loop's own thread ({@link #of}
 * gives a thread only its own loop's deadlines).
 */
final class LoopDeadlines {

  /** Timeout lengths with a lane; a timer of another length is a task of its own (the caller's). */
  static final int MAX_LANES = 16;

  private static final FastThreadLocal<LoopDeadlines> LOOPS = new FastThreadLocal<>();

  /** Something with a deadline in a lane. */
  abstract static class Timed {
    private Timed prev;
    private Timed next;
    private long deadline;

    /** Its deadline passed; it is out of its lane already. Runs on the loop. */
    abstract void expired();
  }

  /** The timers of one timeout length, in deadline order behind a sentinel. */
  private static final class Lane {
    final long lengthNanos;
    /** {@code head.next} the first (earliest) timer, {@code head.prev} the last. */
    final Timed head = new Timed() {
      @Override
      void expired() {
        throw new AssertionError("a lane's sentinel never expires");
      }
    };

    Lane(long lengthNanos) {
      this.lengthNanos = lengthNanos;
      head.prev = head;
      head.next = head;
    }
  }

  private final EventExecutor loop;
  private final Lane[] lanes = new Lane[MAX_LANES];
  private int laneCount;
  private ScheduledFuture<?> sweep;
  /** When {@link #sweep} runs (System.nanoTime), valid while it is not null. */
  private long sweepAt;

  private LoopDeadlines(EventExecutor loop) {
    this.loop = loop;
  }

  /** {@code loop}'s deadlines when called on its thread; null on any other thread. */
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

  /**
   * (Re)arms {@code t} in the lane of timeouts {@code lengthNanos} long, to expire at
   * {@code deadline} (System.nanoTime; at most that length from now, so that one lane stays in
   * order at little cost). False, and {@code t} disarmed, when every lane has another length or
   * when called off the loop's thread (the caller then keeps a task of its own).
   */
  boolean arm(Timed t, long lengthNanos, long deadline) {
    if (!loop.inEventLoop()) {
      disarm(t);
      return false;
    }
    disarm(t);
    Lane lane = lane(lengthNanos);
    if (lane == null) {
      return false;
    }
    t.deadline = deadline;
    Timed head = lane.head;
    Timed before = head.prev; // from the end: one length's deadlines come in arming order
    while (before != head && before.deadline - deadline > 0) {
      before = before.prev;
    }
    link(t, before, before.next);
    if (sweep == null || deadline - sweepAt < 0) {
      sweepAt(deadline);
    }
    return true;
  }

  /**
   * Takes {@code t} out of its lane; nothing if it is in none. Off the loop's thread (a call ended
   * from elsewhere), on the loop: the lanes are the loop's alone.
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
    for (int i = 0; i < laneCount; i++) {
      Timed head = lanes[i].head;
      for (Timed t = head.next; t != head; t = t.next) {
        n++;
      }
    }
    return n;
  }

  private Lane lane(long lengthNanos) {
    for (int i = 0; i < laneCount; i++) {
      if (lanes[i].lengthNanos == lengthNanos) {
        return lanes[i];
      }
    }
    if (laneCount == MAX_LANES) {
      return null;
    }
    return lanes[laneCount++] = new Lane(lengthNanos);
  }

  private static void link(Timed t, Timed prev, Timed next) {
    t.prev = prev;
    t.next = next;
    prev.next = t;
    next.prev = t;
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
   * Fires every timer whose deadline passed (the first entries of each lane) and waits for the
   * earliest of the rest. Those that fire are taken out first: firing one may arm or disarm others.
   */
  private void sweep() {
    sweep = null;
    long now = System.nanoTime();
    List<Timed> expired = null;
    for (int i = 0; i < laneCount; i++) {
      Timed head = lanes[i].head;
      while (head.next != head && head.next.deadline - now <= 0) {
        Timed t = head.next;
        unlink(t);
        if (expired == null) {
          expired = new ArrayList<>(2);
        }
        expired.add(t);
      }
    }
    boolean more = false;
    long next = 0;
    for (int i = 0; i < laneCount; i++) {
      Timed first = lanes[i].head.next;
      if (first != lanes[i].head && (!more || first.deadline - next < 0)) {
        more = true;
        next = first.deadline;
      }
    }
    if (more && (sweep == null || next - sweepAt < 0)) {
      sweepAt(next);
    }
    if (expired != null) {
      for (Timed t : expired) {
        t.expired();
      }
    }
  }
}
