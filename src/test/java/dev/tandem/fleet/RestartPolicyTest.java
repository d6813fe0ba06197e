package dev.tandem.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RestartPolicyTest {
  private final RestartPolicy policy =
      new RestartPolicy(Duration.ofMillis(500), Duration.ofSeconds(5), 3);

  @Test
  void backOffDoublesUpToTheMaximum() {
    assertEquals(Duration.ofMillis(500), policy.delay(1));
    assertEquals(Duration.ofMillis(1000), policy.delay(2));
    assertEquals(Duration.ofMillis(4000), policy.delay(4));
    assertEquals(Duration.ofSeconds(5), policy.delay(5));
    assertEquals(Duration.ofSeconds(5), policy.delay(1000), "no overflow for long crash loops");
  }

  @Test
  void limitAndStability() {
    assertTrue(policy.allows(3));
    assertFalse(policy.allows(4));
    assertFalse(policy.isStable(Duration.ofSeconds(4)));
    assertTrue(policy.isStable(Duration.ofSeconds(5)));
  }
}
