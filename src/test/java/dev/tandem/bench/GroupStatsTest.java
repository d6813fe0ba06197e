package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class GroupStatsTest {

  private static final long MS = 1_000_000;

  /** A streamed success: first token at {@code ttft} ms, end at {@code e2e} ms, {@code tokens} tokens. */
  private static RequestOutcome ok(long ttft, long e2e, int tokens) {
    return new RequestOutcome(0, "default", false, tokens, 1000 * MS, (1000 + ttft) * MS, (1000 + e2e) * MS, 10, tokens,
        true, null, null);
  }

  private static RequestOutcome err(String kind) {
    return new RequestOutcome(0, "default", false, 8, 0, 0, 5 * MS, -1, 0, false, kind, "because");
  }

  @Test
  void ttftTpotAndE2eFromTimestamps() {
    RequestOutcome o = ok(50, 250, 21);
    assertEquals(50, o.ttftMillis(), 1e-9);
    assertEquals(250, o.e2eMillis(), 1e-9);
    assertEquals(10, o.tpotMillis(), 1e-9); // (250 - 50) / (21 - 1)
    assertTrue(Double.isNaN(ok(50, 50, 1).tpotMillis()), "one token has no time per output token");
  }

  @Test
  void goodputCountsOnlySuccessesWithinEveryLimit() {
    List<RequestOutcome> all = List.of(ok(50, 250, 21), ok(150, 350, 21), ok(50, 850, 21), err("http_503"),
        err("http_503"), err("stream_cut"));
    GroupStats g = GroupStats.of(all, 2.0, 100, 20);
    assertEquals(6, g.requests());
    assertEquals(3, g.ok());
    assertEquals(3, g.errors());
    assertEquals(2, g.errorsByKind().get("http_503"));
    assertEquals(1, g.errorsByKind().get("stream_cut"));
    // Only the first meets ttft <= 100 and tpot <= 20 (the third has tpot 40, the second ttft 150).
    assertEquals(1, g.withinSlo());
    assertEquals(0.5, g.goodputPerSecond(), 1e-9);
    assertEquals(1.5, g.requestsPerSecond(), 1e-9);
    assertEquals(63 / 2.0, g.outputTokensPerSecond(), 1e-9);
    assertEquals(150, g.ttft().max(), 1e-9);
    assertEquals(3, g.e2e().count());
    assertEquals(-1, GroupStats.of(all, 2.0, Double.NaN, Double.NaN).withinSlo(), "no SLO, no goodput");
    assertEquals(2, GroupStats.of(all, 2.0, 100, Double.NaN).withinSlo());
  }

  @Test
  void shortOutputsAreCounted() {
    RequestOutcome shortOne = new RequestOutcome(0, "default", false, 32, 0, MS, 9 * MS, 4, 5, true, null, null);
    assertEquals(1, GroupStats.of(List.of(shortOne, ok(1, 2, 3)), 1, Double.NaN, Double.NaN).shortOutputs());
  }
}
