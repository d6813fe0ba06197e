package dev.tandem.router.dispatch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.JsonInts;
import dev.tandem.router.upstream.Cancellation;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ResumePlannerTest {

  static final int[] PROMPT = {1, 2, 3};

  static CompletionJob job(double temperature, Long seed, Integer maxTokens, int n) {
    return new CompletionJob("cmpl-x", 0, "m", new JsonInts(PROMPT), null, null, n, maxTokens,
        true, false, null, temperature, seed, new JsonObject(), new Cancellation());
  }

  static AttemptResult.ChoiceOutcome preempted(int index, String text, int[] chunkIds, int[] outputIds) {
    return new AttemptResult.ChoiceOutcome(index, text, chunkIds, outputIds, PROMPT, false);
  }

  static <T> T now(Future<T> f) {
    assertTrue(f.isComplete(), "planner futures here complete at once");
    return f.result();
  }

  @Test
  void greedyWithChunkIdsContinuesFromPromptPlusDeliveredTokens() {
    ChoiceLedger ledger = new ChoiceLedger(1);
    ledger.apply(0, new ChoiceDelta("abc", null, null));
    ledger.record(preempted(0, "abc", new int[] {7, 8, 9}, null), false);
    ResumePlan plan = now(new ResumePlanner(null).plan(job(0, null, 10, 1), ledger, Set.of(0), false));
    assertFalse(plan.replay());
    AttemptSpec spec = plan.specs().get(0);
    assertArrayEquals(new int[] {1, 2, 3, 7, 8, 9}, spec.promptIds());
    assertEquals(7, spec.maxTokens());
    assertEquals(1, spec.n());
    assertEquals(0, spec.routes().get(0).clientIndex());
  }

  @Test
  void theEnginesTokenRecordIsMatchedAgainstWhatWasDelivered() {
    ChoiceLedger ledger = new ChoiceLedger(1);
    ledger.apply(0, new ChoiceDelta("ab", null, null));
    // the engine generated 4 tokens but held back the text of the last one
    ledger.record(preempted(0, "ab", null, new int[] {5, 6, 7, 8}), false);
    DeliveredTokens matcher = (tail, ids, text) -> Future.succeededFuture(text.equals("ab") ? 3 : -1);
    ResumePlan plan = now(new ResumePlanner(matcher).plan(job(0, null, null, 1), ledger, Set.of(0), false));
    assertArrayEquals(new int[] {1, 2, 3, 5, 6, 7}, plan.specs().get(0).promptIds());
    assertNull(plan.specs().get(0).maxTokens(), "no budget stays no budget");
    assertEquals(3, ledger.get(0).tokens);
  }

  @Test
  void unmatchableRecordFallsBackToAReplayThatSkipsWhatWasSent() {
    ChoiceLedger ledger = new ChoiceLedger(2);
    ledger.apply(0, new ChoiceDelta("hello", null, "stop"));
    ledger.record(new AttemptResult.ChoiceOutcome(0, "hello", null, new int[] {4, 4}, PROMPT, true), false);
    ledger.apply(1, new ChoiceDelta("wor", null, null));
    ledger.record(preempted(1, "wor", null, new int[] {5, 6}), false);
    DeliveredTokens never = (tail, ids, text) -> Future.succeededFuture(-1);
    ResumePlan plan = now(new ResumePlanner(never).plan(job(0, null, 8, 2), ledger, Set.of(1), false));
    assertTrue(plan.replay());
    AttemptSpec spec = plan.specs().get(0);
    assertArrayEquals(PROMPT, spec.promptIds());
    assertEquals(2, spec.n());
    assertEquals(8, spec.maxTokens());
    assertTrue(spec.routes().get(0).drop(), "finished choice 0 is not sent again");
    assertEquals(3, spec.routes().get(1).skipChars());
  }

  @Test
  void samplingIsAlwaysReplayedSoTheSeededStreamRepeats() {
    ChoiceLedger ledger = new ChoiceLedger(1);
    ledger.apply(0, new ChoiceDelta("xy", null, null));
    ledger.record(preempted(0, "xy", new int[] {1, 2}, null), false);
    ResumePlan plan = now(new ResumePlanner(null).plan(job(0.7, 42L, 10, 1), ledger, Set.of(0), false));
    assertTrue(plan.replay());
    assertEquals(2, plan.specs().get(0).routes().get(0).skipChars());
  }

  @Test
  void spentBudgetFinishesWithoutAnotherEngineCall() {
    ChoiceLedger ledger = new ChoiceLedger(1);
    ledger.apply(0, new ChoiceDelta("abcd", null, null));
    ledger.record(preempted(0, "abcd", new int[] {1, 2, 3, 4}, null), false);
    ResumePlan plan = now(new ResumePlanner(null).plan(job(0, null, 4, 1), ledger, Set.of(0), false));
    assertEquals(List.of(0), plan.exhausted());
    assertTrue(plan.specs().isEmpty());
  }

  @Test
  void onceReplayingAlwaysReplaying() {
    ChoiceLedger ledger = new ChoiceLedger(1);
    ledger.record(preempted(0, "", new int[0], null), false);
    assertTrue(now(new ResumePlanner(null).plan(job(0, null, 4, 1), ledger, Set.of(0), true)).replay());
  }
}
