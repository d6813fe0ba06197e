package dev.tandem.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

  @Test
  void doublesFromTheFirstDelayUpToTheCap() {
    Backoff b = Backoff.ofMillis(25, 500);
    assertEquals(Duration.ofMillis(25), b.delay(1));
    assertEquals(Duration.ofMillis(50), b.delay(2));
    assertEquals(Duration.ofMillis(400), b.delay(5));
    assertEquals(Duration.ofMillis(500), b.delay(6), "800 ms is capped");
    assertEquals(Duration.ofMillis(500), b.delay(7));
  }

  @Test
  void countsBelowOneAreTheFirstTry() {
    assertEquals(Duration.ofMillis(25), Backoff.ofMillis(25, 500).delay(0));
    assertEquals(Duration.ofMillis(25), Backoff.ofMillis(25, 500).delay(-3));
  }

  @Test
  void longRunsNeverOverflow() {
    Backoff b = new Backoff(Duration.ofDays(1), Duration.ofDays(30));
    assertEquals(Duration.ofDays(30), b.delay(40));
    assertEquals(Duration.ofDays(30), b.delay(Integer.MAX_VALUE));
    assertEquals(Duration.ofSeconds(5), Backoff.ofMillis(500, 5000).delay(1000));
  }

  @Test
  void aCapEqualToTheFirstDelayIsAFixedDelay() {
    Backoff fixed = Backoff.ofMillis(1000, 1000);
    assertEquals(Duration.ofSeconds(1), fixed.delay(1));
    assertEquals(Duration.ofSeconds(1), fixed.delay(9));
  }

  @Test
  void nonsenseBoundsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> Backoff.ofMillis(0, 10));
    assertThrows(IllegalArgumentException.class, () -> Backoff.ofMillis(100, 10));
  }
}
