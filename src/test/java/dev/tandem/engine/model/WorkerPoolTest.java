package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class WorkerPoolTest {
  @Test
  void everyTaskRunsBeforeTheLoopReturnsOverManyLoops() {
    try (WorkerPool pool = new WorkerPool(3, "test-pool")) {
      for (int loop = 0; loop < 2000; loop++) {
        int n = 1 + loop % 37;
        AtomicIntegerArray runs = new AtomicIntegerArray(n);
        int[] out = new int[n];
        int salt = loop;
        pool.run(n, i -> {
          runs.incrementAndGet(i);
          out[i] = i * 31 + salt;
        });
        for (int i = 0; i < n; i++) {
          assertTrue(runs.get(i) >= 1, "task " + i + " of loop " + loop);
          assertEquals(i * 31 + salt, out[i]);
        }
      }
    }
  }

  @Test
  @Timeout(30)
  void aStalledWorkerDoesNotHoldUpTheLoop() {
    try (WorkerPool pool = new WorkerPool(2, "stall-pool")) {
      CountDownLatch release = new CountDownLatch(1);
      AtomicBoolean stalled = new AtomicBoolean();
      AtomicBoolean stillStalled = new AtomicBoolean();
      // Stands in for a worker descheduled mid-task: the first task a worker picks up blocks until released.
      WorkerPool.Task task = i -> {
        if (Thread.currentThread().getName().startsWith("stall-pool") && stalled.compareAndSet(false, true)) {
          stillStalled.set(true);
          awaitQuietly(release);
          stillStalled.set(false);
        }
        busyMicros(100);
      };
      for (int attempt = 0; attempt < 200 && !stalled.get(); attempt++) {
        pool.run(64, task); // returns although a task may be stuck in the worker
      }
      assertTrue(stalled.get(), "a worker should have taken a task");
      assertTrue(stillStalled.get(), "the loop returned while its worker was still stuck");
      AtomicIntegerArray runs = new AtomicIntegerArray(16);
      pool.run(16, runs::incrementAndGet);
      for (int i = 0; i < 16; i++) {
        assertTrue(runs.get(i) >= 1, "task " + i);
      }
      release.countDown();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void busyMicros(long micros) {
    long until = System.nanoTime() + micros * 1000;
    while (System.nanoTime() < until) {
      Thread.onSpinWait();
    }
  }

  @Test
  void aFailingTaskFailsTheLoopAndThePoolKeepsWorking() {
    try (WorkerPool pool = new WorkerPool(2, "test-pool")) {
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.run(50, i -> {
        if (i == 17) {
          throw new IllegalStateException("boom " + i);
        }
      }));
      assertEquals("boom 17", e.getMessage());
      AtomicIntegerArray runs = new AtomicIntegerArray(10);
      pool.run(10, runs::incrementAndGet);
      for (int i = 0; i < 10; i++) {
        assertTrue(runs.get(i) >= 1);
      }
    }
  }

  @Test
  void closeStopsTheWorkers() throws Exception {
    WorkerPool pool = new WorkerPool(3, "closing-pool");
    pool.run(4, i -> { });
    pool.close();
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith("closing-pool"))) {
      assertTrue(System.nanoTime() < deadline, "workers still alive after close");
      Thread.onSpinWait();
    }
    assertThrows(IllegalStateException.class, () -> pool.run(4, i -> { }));
  }
}
