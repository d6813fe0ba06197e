package dev.tandem.router.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tandem.api.ApiError;
import org.junit.jupiter.api.Test;

/** The router's token checks mirror the engine's (Engine.checkPrompt); field checks are the engine's own class. */
class CompletionValidatorTest {

  static final ModelInfo MODEL = new ModelInfo("m", 16, 100);

  static ApiError rejected(int[] ids, Integer maxTokens) {
    return assertThrows(ApiError.class, () -> CompletionValidator.checkTokens(ids, maxTokens, MODEL));
  }

  @Test
  void tokenLimits() {
    CompletionValidator.checkTokens(new int[] {0, 99}, 14, MODEL);
    assertEquals("prompt", rejected(new int[0], null).param());
    assertEquals("invalid_token", rejected(new int[] {100}, null).code());
    assertEquals("invalid_token", rejected(new int[] {-1}, null).code());
    assertEquals("context_length_exceeded", rejected(new int[16], null).code());
    ApiError budget = rejected(new int[2], 15);
    assertEquals("max_tokens", budget.param());
    assertEquals(400, budget.status());
  }

  @Test
  void unknownLimitsAreLeftToTheEngine() {
    CompletionValidator.checkTokens(new int[] {5000}, 100_000, new ModelInfo("m", 0, 0));
  }
}
