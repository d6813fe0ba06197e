package dev.tandem.router.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class RequestIdsTest {

  @Test
  void idsAreCmplAnd32LowercaseHexDigits() {
    for (int i = 0; i < 1_000; i++) {
      String id = RequestIds.next();
      assertTrue(id.matches("cmpl-[0-9a-f]{32}"), id);
    }
  }

  @Test
  void idsAreUniqueAcrossBatchesAndThreads() throws InterruptedException {
    Set<String> seen = ConcurrentHashMap.newKeySet();
    int perThread = 5_000; // many batches of 64 per thread
    Thread[] threads = new Thread[4];
    for (int t = 0; t < threads.length; t++) {
      threads[t] = new Thread(() -> {
        for (int i = 0; i < perThread; i++) {
          seen.add(RequestIds.next());
        }
      });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(threads.length * perThread, seen.size());
  }

  @Test
  void everyHexDigitAppearsInEveryPosition() {
    // A stuck nibble (a wrong shift or mask) would leave a position with one digit only.
    boolean[][] digits = new boolean[32][16];
    for (int i = 0; i < 2_000; i++) {
      String hex = RequestIds.next().substring(5);
      for (int p = 0; p < 32; p++) {
        digits[p][Character.digit(hex.charAt(p), 16)] = true;
      }
    }
    for (int p = 0; p < 32; p++) {
      for (int d = 0; d < 16; d++) {
        assertTrue(digits[p][d], "position " + p + " never held digit " + d);
      }
    }
  }
}
