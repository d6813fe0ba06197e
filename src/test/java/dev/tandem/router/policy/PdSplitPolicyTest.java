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
  void anIdlePrefillEngineTakesTheWholePrompt() {
    PdSplitPolicy.Decision d = adaptive.decide(2000, 0, 0, 5);
    assertEquals(PdSplitPolicy.Kind.FULL, d.kind());
    assertEquals(0, d.balanceFactor());
  }

  @Test
  void theSplitFollowsTheQueues() {
    PdSplitPolicy.Decision d = adaptive.decide(2000, 0, 1, 0); // f = 1 / 2
    assertEquals(PdSplitPolicy.Kind.PARTIAL, d.kind());
    assertEquals(0.5, d.balanceFactor(), 1e-9);
    // a cached prefix on D: the factor is of the whole prompt, covering half the uncached part
    assertEquals(0.25, adaptive.decide(2000, 1000, 1, 0).balanceFactor(), 1e-9);
    KvWindow w = KvWindow.of(2000, adaptive.decide(2000, 1000, 1, 0).balanceFactor());
    assertEquals(1500, w.end()); // P sends [1000, 1500), D computes [1500, 2000)
  }

  @Test
  void aBusyPrefillEngineIsSkipped() {
    assertEquals(PdSplitPolicy.Kind.DECODE_ONLY, adaptive.decide(2000, 0, 2, 0).kind());
    // ... unless D has as much waiting
    assertEquals(PdSplitPolicy.Kind.PARTIAL, adaptive.decide(2000, 0, 2, 2).kind());
  }
}
