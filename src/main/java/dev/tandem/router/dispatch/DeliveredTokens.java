package dev.tandem.router.dispatch;

import io.vertx.core.Future;

/**
 * Finds how many of an attempt's generated tokens a client really received: an engine holds back
 * the text of a token that ends in a broken character or may start a stop string, and a preempt
 * drops that held text. Implemented with the model's tokenizer, off the event loop.
 */
@FunctionalInterface
public interface DeliveredTokens {

  /**
   * @param promptTail the last prompt tokens of the attempt (decoding context, as engines use it)
   * @param outputIds every token the engine generated in the attempt
   * @param text the text the client received from the attempt
   * @return the largest k such that {@code outputIds[0, k)} decode to exactly {@code text}, or -1
   */
  Future<Integer> count(int[] promptTail, int[] outputIds, String text);
}
