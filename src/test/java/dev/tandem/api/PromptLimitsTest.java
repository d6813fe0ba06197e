package dev.tandem.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The one prompt check of router and engine: codes, params and wording clients see. */
class PromptLimitsTest {

  static final PromptLimits MODEL = new PromptLimits(100, 16);

  static ApiError rejected(int[] ids, Integer maxTokens) {
    return assertThrows(ApiError.class, () -> MODEL.check(ids, maxTokens));
  }

  @Test
  void tokenLimits() {
    MODEL.check(new int[] {0, 99}, 14);
    assertEquals("prompt", rejected(new int[0], null).param());
    assertEquals("invalid_token", rejected(new int[] {100}, null).code());
    assertEquals("invalid_token", rejected(new int[] {-1}, null).code());
    assertEquals("context_length_exceeded", rejected(new int[16], null).code());
    ApiError budget = rejected(new int[2], 15);
    assertEquals("max_tokens", budget.param());
    assertEquals(400, budget.status());
  }

  @Test
  void messagesNameTheLimit() {
    assertEquals("Invalid request prompt: it has no tokens", rejected(new int[0], 3).getMessage());
    assertEquals("Token id 100 at index 1 is outside the vocabulary (0..99)",
        rejected(new int[] {1, 100}, null).getMessage());
    assertEquals("Request prompt has 16 tokens in total, larger than the model input length limit 15.",
        rejected(new int[16], null).getMessage());
    assertTrue(rejected(new int[2], 15).getMessage()
        .startsWith("max_tokens 15 plus the prompt's 2 tokens exceeds the context window of 16"));
  }

  @Test
  void unknownLimitsAreLeftToTheEngine() {
    new PromptLimits(0, 0).check(new int[] {5000}, 100_000);
    assertEquals("prompt", assertThrows(ApiError.class,
        () -> new PromptLimits(0, 0).check(new int[0], null)).param(), "an empty prompt is never served");
  }
}
