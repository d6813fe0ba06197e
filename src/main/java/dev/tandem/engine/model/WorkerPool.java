package dev.tandem.engine.model;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * A small fixed set of daemon threads that, together with the calling thread, run the tasks
 * {@code 0 .. n-1} of one parallel loop at a time. Tasks are handed out dynamically, so which
 * thread runs a task varies; callers must make each task's result independent of that (the model
 * never splits a reduction across tasks, which keeps it batch-invariant).
 *
 * <p>A loop ends when all its tasks are done, not when every worker has checked in: on a busy
 * machine a descheduled worker simply misses the loop and the caller does the work, instead of
 * everyone waiting a scheduler quantum for it. Workers spin briefly between loops (a forward step
 * runs hundreds of short loops back to back) and then park, so an idle model costs no CPU.
 */
final class WorkerPool implements AutoCloseable {

  /** One parallel loop body. */
  interface Task {
    void run(int index);
  }

  /** One parallel loop: its own counters, so a worker that wakes late cannot touch a newer loop. */
  private static final class Job {
    final Task body;
    final int count;
    final Thread caller;
    final AtomicInteger next = new AtomicInteger();
    final AtomicInteger done = new AtomicInteger();
    final AtomicReference<Throwable> failure = new AtomicReference<>();

    Job(Task body, int count, Thread caller) {
      this.body = body;
      this.count = count;
      this.caller = caller;
    }

    /** Runs tasks until none are left; true if this thread finished the last one. */
    boolean drain() {
      boolean last = false;
      for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
        try {
          if (failure.get() == null) {
            body.run(i);
          }
        } catch (Throwable t) {
          failure.compareAndSet(null, t);
        }
        last = done.incrementAndGet() == count;
      }
      return last;
    }
  }

  private static final long SPIN_NANOS = 50_000;

  private final Thread[] workers;
  private volatile Job job;
  private volatile boolean closed;

  WorkerPool(int threads, String name) {
    workers = new Thread[Math.max(0, threads - 1)];
    for (int i = 0; i < workers.length; i++) {
      Thread t = new Thread(this::workerLoop, name + "-" + (i + 1));
      t.setDaemon(true);
      workers[i] = t;
      t.start();
    }
  }

  int parallelism() {
    return workers.length + 1;
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
    Job j = new Job(body, n, Thread.currentThread());
    job = j;
    for (Thread w : workers) {
      LockSupport.unpark(w);
    }
    j.drain();
    long spinUntil = System.nanoTime() + SPIN_NANOS;
    while (j.done.get() < n) {
      if (System.nanoTime() < spinUntil) {
        Thread.onSpinWait();
      } else {
        LockSupport.park(this);
      }
    }
    Throwable t = j.failure.get();
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    if (t != null) {
      throw new IllegalStateException(t);
    }
  }

  private void workerLoop() {
    Job seen = null;
    while (!closed) {
      long spinUntil = System.nanoTime() + SPIN_NANOS;
      Job j;
      while ((j = job) == seen && !closed) {
        if (System.nanoTime() < spinUntil) {
          Thread.onSpinWait();
        } else {
          LockSupport.park(this);
        }
      }
      if (closed) {
        return;
      }
      seen = j;
      if (j.drain()) {
        LockSupport.unpark(j.caller);
      }
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
