package dev.tandem.router.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PdSplitPolicyTest {

  private final PdSplitPolicy adaptive = new PdSplitPolicy(
      PdSplitPolicy.Options.of(PdSplitPolicy.Mode.ADAPTIVE, 0));

  @Test
  void staticAlwaysDisaggregatesWithTheConfiguredFactor() {
    PdSplitPolicy s = new PdSplitPolicy(PdSplitPolicy.Options.of(PdSplitPolicy.Mode.STATIC, 0.25));
    PdSplitPolicy.Decision d = s.decide(10, 0, 50, 0);
    assertEquals(PdSplitPolicy.Kind.PARTIAL, d.kind());
    assertEquals(0.25, d.balanceFactor());
    assertEquals(PdSplitPolicy.Kind.DECODE_ONLY, s.decide(1000, 0, -1, 0).kind());
  }

  @Test
  void shortOrCachedPromptsStayOnTheDecodeEngine() {
    assertEquals(PdSplitPolicy.Kind.DECODE_ONLY, adaptive.decide(200, 0, 0, 0).kind());
    PdSplitPolicy.Decision cached = adaptive.decide(3000, 2800, 0, 0);
    assertEquals(PdSplitPolicy.Kind.DECODE_ONLY, cached.kind());
    assertTrue(cached.why().contains("2800"), cached.why());
  }

  @Test
  void aPrefillEngineWithAShortQueueTakesTheWholePrompt() {
    PdSplitPolicy.Decision d = adaptive.decide(2000, 0, 3, 5);
    assertEquals(PdSplitPolicy.Kind.FULL, d.kind());
    assertEquals(0, d.balanceFactor());
  }

  @Test
  void aBusyPrefillEngineOverflowsToTheDecodeEngine() {
    assertEquals(PdSplitPolicy.Kind.DECODE_ONLY, adaptive.decide(2000, 0, 4, 0).kind());
  }

  @Test
  void whenBothSidesHaveWorkTheSplitFollowsTheQueues() {
    PdSplitPolicy.Decision d = adaptive.decide(2000, 0, 4, 4); // f = 4 / 9
    assertEquals(PdSplitPolicy.Kind.PARTIAL, d.kind());
    assertEquals(4 / 9.0, d.balanceFactor(), 1e-9);
    // a cached prefix on D: the factor is of the whole prompt, covering f of the uncached part
    double f = adaptive.decide(2000, 1000, 4, 4).balanceFactor();
    assertEquals(2 / 9.0, f, 1e-9);
    KvWindow w = KvWindow.of(2000, f);
    assertEquals(1555, w.end()); // P sends [1000, 1555), D computes the rest
  }
}
