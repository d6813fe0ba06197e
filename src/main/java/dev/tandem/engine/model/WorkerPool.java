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
 * <p>Workers spin briefly between loops (a forward step runs hundreds of short loops back to
 * back) and then park, so an idle model costs no CPU.
 */
final class WorkerPool implements AutoCloseable {

  /** One parallel loop body. */
  interface Task {
    void run(int index);
  }

  private static final long SPIN_NANOS = 50_000;

  private final Thread[] workers;
  private final AtomicInteger generation = new AtomicInteger();
  private final AtomicInteger next = new AtomicInteger();
  private final AtomicInteger pending = new AtomicInteger();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private volatile Task task;
  private volatile int count;
  private volatile boolean closed;
  private volatile Thread caller;

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
    caller = Thread.currentThread();
    task = body;
    count = n;
    next.set(0);
    pending.set(workers.length);
    failure.set(null);
    generation.incrementAndGet();
    for (Thread w : workers) {
      LockSupport.unpark(w);
    }
    drain(body, n);
    long spinUntil = System.nanoTime() + SPIN_NANOS;
    while (pending.get() > 0) {
      if (System.nanoTime() < spinUntil) {
        Thread.onSpinWait();
      } else {
        LockSupport.park(this);
      }
    }
    task = null;
    Throwable t = failure.get();
    if (t != null) {
      if (t instanceof RuntimeException r) {
        throw r;
      }
      if (t instanceof Error e) {
        throw e;
      }
      throw new IllegalStateException(t);
    }
  }

  private void drain(Task body, int n) {
    try {
      for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
        body.run(i);
      }
    } catch (Throwable t) {
      failure.compareAndSet(null, t);
      next.set(n); // stop handing out tasks
    }
  }

  private void workerLoop() {
    int seen = 0; // not generation.get(): a loop may already have started before this thread runs
    while (!closed) {
      long spinUntil = System.nanoTime() + SPIN_NANOS;
      while (generation.get() == seen && !closed) {
        if (System.nanoTime() < spinUntil) {
          Thread.onSpinWait();
        } else {
          LockSupport.park(this);
        }
      }
      if (closed) {
        return;
      }
      seen = generation.get();
      drain(task, count);
      if (pending.decrementAndGet() == 0) {
        LockSupport.unpark(caller);
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    for (Thread w : workers) {
      LockSupport.unpark(w);
    }
  }
}
