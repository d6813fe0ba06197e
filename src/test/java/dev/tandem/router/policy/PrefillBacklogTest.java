package dev.tandem.router.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PrefillBacklogTest {

  private static final long MS = 1_000_000L;
  private final PrefillBacklog b = new PrefillBacklog();

  @Test
  void noRateBeforeTheFirstPrefillFinished() {
    assertTrue(Double.isNaN(b.waitMillis(1, 100)));
    b.sent(1, 1000, 0);
    assertEquals(1000, b.tokens(1));
    assertTrue(Double.isNaN(b.waitMillis(1, 0)));
  }

  @Test
  void theRateIsTokensPerBusySecondAndTheWaitIsTheBacklogAtThatRate() {
    b.sent(1, 1000, 0);
    b.ended(1, 1000, true, 100 * MS); // 1,000 tokens in 100 ms: 10,000 tokens/s
    assertEquals(10_000, b.tokensPerSecond(1), 1e-6);
    assertEquals(0, b.tokens(1));
    b.sent(1, 2000, 500 * MS); // idle time in between does not count
    b.sent(1, 3000, 500 * MS);
    assertEquals(500 + 100, b.waitMillis(1, 1000), 1e-6); // (5,000 + 1,000) tokens at 10,000/s
  }

  @Test
  void promptsBatchedIntoOneStepDoNotInflateTheRate() {
    // two prompts sent together finish together after 200 ms: 2,000 tokens per 200 busy ms
    b.sent(1, 1000, 0);
    b.sent(1, 1000, 0);
    b.ended(1, 1000, true, 200 * MS);
    b.ended(1, 1000, true, 200 * MS);
    assertEquals(10_000, b.tokensPerSecond(1), 1e-6);
  }

  @Test
  void failedPrefillsLeaveTheBacklogButAddNoWork() {
    b.sent(1, 1000, 0);
    b.ended(1, 1000, true, 100 * MS);
    b.sent(1, 5000, 200 * MS);
    b.ended(1, 5000, false, 250 * MS); // cancelled: its time was busy, its tokens not done
    assertEquals(0, b.tokens(1));
    assertEquals(1000 / 0.15, b.tokensPerSecond(1), 1e-6);
    b.ended(1, 5000, true, 300 * MS); // an end without a send is ignored
    assertEquals(0, b.tokens(1));
  }

  @Test
  void oldWorkFadesAndAForgottenEngineStartsOver() {
    b.sent(1, 10_000, 0);
    b.ended(1, 10_000, true, 1000 * MS); // 10,000 tokens/s for a second
    b.sent(1, 20_000, 2000 * MS);
    b.ended(1, 20_000, true, 12_000 * MS); // then 2,000 tokens/s for ten seconds
    // halved once past the 10 s half-life: (30,000 / 2) tokens over (11 s / 2)
    assertEquals(30_000 / 11.0, b.tokensPerSecond(1), 1e-6);
    b.forget(1);
    assertTrue(Double.isNaN(b.tokensPerSecond(1)));
  }
}
