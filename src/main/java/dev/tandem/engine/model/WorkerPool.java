package dev.tandem.engine.model;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

/**
 * A small fixed set of daemon threads that, together with the calling thread, run the tasks
 * {@code 0 .. n-1} of one parallel loop at a time.
 *
 * <p>Built for a machine shared with other busy processes, where a worker can be descheduled in
 * the middle of a task for many milliseconds. A loop does not wait for such a straggler: once no
 * unclaimed task is left, the caller runs any task that is still unfinished itself. Tasks must
 * therefore be <em>idempotent</em>: running one twice, even concurrently, or late (after the loop
 * returned), writes the same values, and nothing a late run writes is still read once its inputs
 * change. The model satisfies this by writing every phase's output into its own array, never into
 * shared state such as the KV cache, computing each element with one fixed operation order
 * whichever thread runs it (which is also what keeps it batch-invariant), and reusing those
 * arrays for the next layer or step only when {@link #quiescent()} says no late task is left
 * (else it takes fresh ones).
 *
 * <p>Workers spin briefly between loops (a forward step runs hundreds of short loops back to
 * back) and then park, so an idle model costs no CPU.
 */
final class WorkerPool implements AutoCloseable {

  /** One parallel loop body; see the class comment for what a task must guarantee. */
  interface Task {
    void run(int index);
  }

  private static final long IDLE_SPIN_NANOS = 50_000;
  /** How long the caller waits for a claimed task to finish before running it itself. */
  private static final long STRAGGLER_WAIT_NANOS = 20_000;

  /** One parallel loop: its own counters, so a worker that wakes late cannot touch a newer loop. */
  private static final class Job {
    final Task body;
    final int count;
    final AtomicInteger next = new AtomicInteger();
    final AtomicInteger finished = new AtomicInteger();
    final AtomicIntegerArray done;
    volatile RuntimeException failure;

    Job(Task body, int count) {
      this.body = body;
      this.count = count;
      this.done = new AtomicIntegerArray(count);
    }

    /** Claims and runs tasks until none is unclaimed (the calling thread). */
    void drain() {
      for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
        runTask(i);
      }
    }

    /**
     * As {@link #drain()}, for a worker: counted in {@code busy} from before it claims a task until
     * that task is done, so that {@code busy == 0} once a loop has returned means no task of it
     * (or of any earlier loop) is still running or can start.
     */
    void drainCounted(AtomicInteger busy) {
      while (true) {
        busy.incrementAndGet();
        try {
          int i = next.getAndIncrement();
          if (i >= count) {
            return;
          }
          runTask(i);
        } finally {
          busy.decrementAndGet();
        }
      }
    }

    void runTask(int i) {
      try {
        body.run(i);
      } catch (RuntimeException e) {
        failure = e;
      } catch (Error e) { // keep the worker alive; the caller rethrows
        failure = new IllegalStateException(e);
      }
      if (done.compareAndSet(i, 0, 1)) {
        finished.incrementAndGet();
      }
    }
  }

  private final Thread[] workers;
  /** Workers inside {@link Job#drainCounted} (claiming or running a task). */
  private final AtomicInteger busy = new AtomicInteger();
  private volatile Job job;
  private volatile boolean closed;

  WorkerPool(int threads, String name) {
    this(threads, name, () -> { });
  }

  /** @param onStart run first by each worker thread (e.g. pinning itself to its cores) */
  WorkerPool(int threads, String name, Runnable onStart) {
    workers = new Thread[Math.max(0, threads - 1)];
    for (int i = 0; i < workers.length; i++) {
      Thread t = new Thread(() -> {
        onStart.run();
        workerLoop();
      }, name + "-" + (i + 1));
      t.setDaemon(true);
      workers[i] = t;
      t.start();
    }
  }

  /** Runs {@code task(0) .. task(n-1)} on the pool and the calling thread; returns when all are done. */
  void run(int n, Task body) {
    if (n <= 0) {
      return;
    }
    if (workers.length == 0 || n == 1) {
      for (int i = 0; i < n; i++) {
        body.run(i);
      }
      return;
    }
    if (closed) {
      throw new IllegalStateException("model is closed");
    }
    Job j = new Job(body, n);
    job = j;
    for (Thread w : workers) {
      LockSupport.unpark(w);
    }
    j.drain();
    long waitUntil = System.nanoTime() + STRAGGLER_WAIT_NANOS;
    while (j.finished.get() < n && System.nanoTime() < waitUntil) {
      Thread.onSpinWait();
    }
    // Whatever is still running belongs to a slow or descheduled worker: do it here.
    for (int i = n - 1; i >= 0 && j.finished.get() < n; i--) {
      if (j.done.get(i) == 0) {
        j.runTask(i);
      }
    }
    RuntimeException failure = j.failure;
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * True when no worker is running a task of any loop: arrays that earlier loops' tasks read or
   * wrote may then be reused. False (rarely) while a descheduled straggler still finishes one.
   */
  boolean quiescent() {
    return busy.get() == 0;
  }

  /** Threads computing a loop, the caller's included. */
  int threads() {
    return workers.length + 1;
  }

  private void workerLoop() {
    Job seen = null;
    while (!closed) {
      long spinUntil = System.nanoTime() + IDLE_SPIN_NANOS;
      Job j;
      while ((j = job) == seen && !closed) {
        if (System.nanoTime() < spinUntil) {
          Thread.onSpinWait();
        } else {
          LockSupport.park(this);
        }
      }
      if (closed || j == null) {
        return;
      }
      seen = j;
      j.drainCounted(busy);
    }
  }

  @Override
  public void close() {
    closed = true;
    job = null;
    for (Thread w : workers) {
      LockSupport.unpark(w);
    }
  }
}
