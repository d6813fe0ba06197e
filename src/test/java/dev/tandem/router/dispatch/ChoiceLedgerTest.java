package dev.tandem.router.dispatch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class ChoiceLedgerTest {

  static JsonObject lp(String token, double value) {
    return new JsonObject().put("text_offset", null).put("token_logprobs", new JsonArray().add(value))
        .put("tokens", new JsonArray().add(token)).put("top_logprobs", new JsonArray().add(new JsonObject().put(token, value)));
  }

  @Test
  void textIsConcatenatedLogprobsAppendedAndTheFirstFinishReasonKept() {
    ChoiceLedger l = new ChoiceLedger(1);
    l.apply(0, new ChoiceDelta("a", lp("a", -1), null));
    l.apply(0, new ChoiceDelta("b", lp("b", -2), "length"));
    l.apply(0, new ChoiceDelta("", null, "stop"));
    ChoiceLedger.Choice c = l.get(0);
    assertEquals("ab", c.text.toString());
    assertEquals("length", c.finishReason);
    assertEquals(new JsonArray().add("a").add("b"), c.logprobs.getJsonArray("tokens"));
    assertEquals(new JsonArray().add(-1.0).add(-2.0), c.logprobs.getJsonArray("token_logprobs"));
    assertEquals(2, c.logprobEntries);
  }

  @Test
  void tokenAccountingAcrossAttempts() {
    ChoiceLedger l = new ChoiceLedger(2);
    l.record(new AttemptResult.ChoiceOutcome(0, "ab", new int[] {1, 2}, null, new int[0], false), false);
    l.record(new AttemptResult.ChoiceOutcome(0, "c", null, new int[] {3}, new int[0], true), false);
    assertArrayEquals(new int[] {1, 2, 3}, l.get(0).tokenIds());
    assertTrue(l.get(0).idsComplete);
    l.record(new AttemptResult.ChoiceOutcome(1, "xyz", null, null, new int[0], true), false);
    assertFalse(l.get(1).idsComplete);
    assertFalse(l.allTokenCountsKnown(), "an engine without a token record leaves counts unknown");
    // a finished replay regenerated choice 1 from its start: its record counts the whole choice
    l.record(new AttemptResult.ChoiceOutcome(1, "", null, new int[] {4, 5, 6, 7}, new int[0], true), true);
    assertTrue(l.allTokenCountsKnown());
    assertEquals(7, l.totalTokens());
  }
}
