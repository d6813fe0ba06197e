package dev.tandem.router.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RecentLatenciesTest {

  @Test
  void percentilesAreNearestRankOverTheWindowOnly() {
    RecentLatencies recent = new RecentLatencies();
    for (int i = 0; i < 50; i++) { // ended before the window: left out
      recent.add(1_000 + i, 1000.0, 1000.0);
    }
    for (int i = 100; i >= 1; i--) { // out of order: the window sorts
      recent.add(5_000 + i, i, i / 10.0);
    }
    RecentLatencies.Window w = recent.since(2_000);
    assertEquals(100, w.count());
    assertEquals(50.0, w.ttftP50());
    assertEquals(90.0, w.ttftP90());
    assertEquals(99.0, w.ttftP99());
    assertEquals(5.0, w.tpotP50());
    assertEquals(9.9, w.tpotP99(), 1e-12);
  }

  @Test
  void answersWithoutATimePerTokenCountOnlyForTtft() {
    RecentLatencies recent = new RecentLatencies();
    recent.add(10, 0.2, Double.NaN);
    recent.add(11, 0.4, 0.05);
    RecentLatencies.Window w = recent.since(0);
    assertEquals(2, w.count());
    assertEquals(0.2, w.ttftP50());
    assertEquals(0.4, w.ttftP99());
    assertEquals(0.05, w.tpotP50());
    assertEquals(0.05, w.tpotP99());
  }

  @Test
  void anEmptyWindowHasNoPercentiles() {
    RecentLatencies recent = new RecentLatencies();
    assertTrue(Double.isNaN(recent.since(0).ttftP50()));
    recent.add(10, 0.2, 0.01);
    RecentLatencies.Window w = recent.since(10);
    assertEquals(0, w.count());
    assertTrue(Double.isNaN(w.ttftP90()));
    assertTrue(Double.isNaN(w.tpotP99()));
  }

  @Test
  void keepsTheLastRequestsOnly() {
    RecentLatencies recent = new RecentLatencies();
    for (int i = 0; i < RecentLatencies.SIZE + 10; i++) { // the first ten are overwritten
      recent.add(100 + i, i < 10 ? 1e6 : 1.0, 0.01);
    }
    RecentLatencies.Window w = recent.since(0);
    assertEquals(RecentLatencies.SIZE, w.count());
    assertEquals(1.0, w.ttftP99());
  }
}
