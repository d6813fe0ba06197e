package dev.tandem.router.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class KvWindowTest {

  @Test
  void factorZeroLeavesOnlyTheLastTokenToD() {
    assertEquals(99, KvWindow.of(100, 0.0).end());
    assertEquals(3, KvWindow.of(4, 0.0).end());
  }

  @Test
  void factorAsMlcComputesIt() {
    // reference §4.6: factor 0.1, 100-token prompt -> end 90
    assertEquals(90, KvWindow.of(100, 0.1).end());
    // truncation toward zero: (1 - 0.3) * 7 = 4.9 -> 4
    assertEquals(4, KvWindow.of(7, 0.3).end());
  }

  @Test
  void windowIsClampedSoDAlwaysComputesTheLastToken() {
    // a factor so small that (1 - f) * len rounds to len would be rejected by the engine
    assertEquals(9, KvWindow.of(10, 1e-18).end());
    // a one-token prompt: nothing to send
    KvWindow one = KvWindow.of(1, 0.0);
    assertEquals(0, one.end());
    assertFalse(one.needsRemoteSend(0));
    // a large factor leaves everything to D
    assertEquals(0, KvWindow.of(3, 0.9).end());
  }

  @Test
  void windowsOutsideThePromptAreRejected() {
    // the factor itself is checked once, when it is configured (RouterOptionsTest)
    assertThrows(IllegalArgumentException.class, () -> KvWindow.of(0, 0.0));
    assertThrows(IllegalArgumentException.class, () -> new KvWindow(5, 5));
    assertThrows(IllegalArgumentException.class, () -> new KvWindow(5, -1));
  }

  @Test
  void remoteSendOnlyWhenDsCacheDoesNotCoverTheWindow() {
    KvWindow w = KvWindow.of(100, 0.0);
    assertTrue(w.needsRemoteSend(0));
    assertTrue(w.needsRemoteSend(98));
    assertFalse(w.needsRemoteSend(99));
    assertTrue(w.acceptsPrefixMatch(99));
    assertFalse(w.acceptsPrefixMatch(100));
    assertFalse(w.acceptsPrefixMatch(-1));
  }
}
