package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class WorkerPoolTest {
  @Test
  void everyTaskRunsExactlyOnceOverManyLoops() {
    try (WorkerPool pool = new WorkerPool(3, "test-pool")) {
      for (int loop = 0; loop < 2000; loop++) {
        int n = 1 + loop % 37;
        AtomicIntegerArray runs = new AtomicIntegerArray(n);
        pool.run(n, runs::incrementAndGet);
        for (int i = 0; i < n; i++) {
          assertEquals(1, runs.get(i), "task " + i + " of loop " + loop);
        }
      }
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
        assertEquals(1, runs.get(i));
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
