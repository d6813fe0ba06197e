package dev.tandem.router.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PdSplitPolicyTest {

  private static final double NaN = Double.NaN;

  private final PdSplitPolicy adaptive = new PdSplitPolicy(
      PdSplitPolicy.Options.of(PdSplitPolicy.Mode.ADAPTIVE, 0));

  @Test
  void modesReadTheirOwnWireNames() {
    for (PdSplitPolicy.Mode m : PdSplitPolicy.Mode.values()) {
      assertEquals(m, PdSplitPolicy.Mode.parse(m.wireName()));
    }
    assertEquals("static", PdSplitPolicy.Mode.STATIC.wireName());
    assertEquals("adaptive", PdSplitPolicy.Mode.ADAPTIVE.wireName());
  }

  @Test
  void staticAlwaysDisaggregatesWithTheConfiguredFactor() {
    PdSplitPolicy s = new PdSplitPolicy(PdSplitPolicy.Options.of(PdSplitPolicy.Mode.STATIC, 0.25));
    PdSplitPolicy.Decision d = s.decide(10, 0, 50, NaN, 0);
    assertEquals(PdSplitPolicy.Kind.PARTIAL, d.kind());
    assertEquals(0.25, d.balanceFactor());
    assertEquals(PdSplitPolicy.Kind.DECODE_ONLY, s.decide(1000, 0, -1, NaN, 0).kind());
  }

  @Test
  void shortOrCachedPromptsStayOnTheDecodeEngine() {
    assertEquals(PdSplitPolicy.Kind.DECODE_ONLY, adaptive.decide(200, 0, 0, NaN, 0).kind());
    PdSplitPolicy.Decision cached = adaptive.decide(3000, 2800, 0, NaN, 0);
    assertEquals(PdSplitPolicy.Kind.DECODE_ONLY, cached.kind());
    assertTrue(cached.why().contains("2800"), cached.why());
  }

  @Test
  void aPrefillEngineWithAShortQueueTakesTheWholePrompt() {
    PdSplitPolicy.Decision d = adaptive.decide(2000, 0, 3, NaN, 5);
    assertEquals(PdSplitPolicy.Kind.FULL, d.kind());
    assertEquals(0, d.balanceFactor());
  }

  @Test
  void aBusyPrefillEngineOverflowsToTheDecodeEngine() {
    assertEquals(PdSplitPolicy.Kind.DECODE_ONLY, adaptive.decide(2000, 0, 4, NaN, 0).kind());
  }

  @Test
  void whenBothSidesHaveWorkTheSplitFollowsTheQueues() {
    PdSplitPolicy.Decision d = adaptive.decide(2000, 0, 4, NaN, 4); // f = 4 / 9
    assertEquals(PdSplitPolicy.Kind.PARTIAL, d.kind());
    assertEquals(4 / 9.0, d.balanceFactor(), 1e-9);
    // a cached prefix on D: the factor is of the whole prompt, covering f of the uncached part
    double f = adaptive.decide(2000, 1000, 4, NaN, 4).balanceFactor();
    assertEquals(2 / 9.0, f, 1e-9);
    KvWindow w = KvWindow.of(2000, f);
    assertEquals(1555, w.end()); // P sends [1000, 1555), D computes the rest
  }

  @Test
  void onceItsRateIsKnownPrefillEngineBusinessIsTimeNotACount() {
    // five short prompts queued: under the count rule P is busy, but it is done in 120 ms
    PdSplitPolicy.Decision d = adaptive.decide(2000, 0, 5, 120, 5);
    assertEquals(PdSplitPolicy.Kind.FULL, d.kind());
    assertTrue(d.why().contains("120 ms"), d.why());
    // one long prompt queued: the count rule would send more, but P needs 1900 ms (> 1500)
    PdSplitPolicy.Decision busy = adaptive.decide(2000, 0, 1, 1900, 0);
    assertEquals(PdSplitPolicy.Kind.DECODE_ONLY, busy.kind());
    assertTrue(busy.why().contains("1900 ms (> 1500)"), busy.why());
    // busy, and D has as much waiting: a partial split, still explained by the time
    PdSplitPolicy.Decision partial = adaptive.decide(2000, 0, 1, 1900, 1);
    assertEquals(PdSplitPolicy.Kind.PARTIAL, partial.kind());
    assertEquals(1 / 3.0, partial.balanceFactor(), 1e-9);
    assertTrue(partial.why().startsWith("prefill engine needs 1900 ms"), partial.why());
  }

  /** The why's numbers are written as {@code %.0f} writes them, halves rounded up included. */
  @Test
  void wholeNumbersAreWhatFormatWrites() {
    java.util.Random random = new java.util.Random(7);
    double[] fixed = {0, 0.5, 1.5, 2.5, 0.49999999999999994, 99.5, 1499.5, 1500.4999, 12.3456,
        1e14 + 0.5, 1e15, 3e20, Double.NaN, Double.POSITIVE_INFINITY, -2.5, -0.4};
    for (double x : fixed) {
      assertEquals(String.format(java.util.Locale.ROOT, "%.0f", x), PdSplitPolicy.whole(x),
          Double.toString(x));
    }
    for (int k = 0; k < 10_000; k++) {
      double x = k % 2 == 0 ? random.nextDouble() * 5000 : Math.floor(random.nextDouble() * 200) / 2;
      assertEquals(String.format(java.util.Locale.ROOT, "%.0f", x), PdSplitPolicy.whole(x),
          Double.toString(x));
    }
  }
}
