package dev.tandem.router.dispatch;

import dev.tandem.api.JsonInts;
import dev.tandem.router.upstream.Cancellation;
import io.vertx.core.json.JsonObject;

/**
 * One validated completion request as the dispatchers need it: the router's request id, the
 * prompt as token ids, the settings that shape attempts and resumption, and the fields passed on
 * to engines unchanged ({@code engineFields}: sampling, stop, logprobs, seed, ...; never
 * {@code user}, {@code prompt}, {@code n}, {@code max_tokens}, {@code echo}, {@code suffix} or
 * {@code stream}, which the router handles or each attempt sets itself).
 *
 * @param requestId {@code cmpl-<32 hex>}, the id clients see and the base of engine request ids
 * @param created unix seconds, the same in every chunk
 * @param responseModel the {@code model} reported in answers
 * @param prompt the prompt's token ids, as engine bodies write them ({@link #promptIds})
 * @param echoText the decoded prompt when {@code echo} was asked (the router echoes, engines never
 *     do, so a resumed choice cannot echo twice); null otherwise
 * @param suffix text appended to every choice after all finished (router-side for the same
 *     reason); null for none
 * @param maxTokens completion budget per choice, null for "until stop or context end"
 * @param temperature 0 is greedy decoding
 * @param seed the sampling seed; the router picks one when a sampling client gave none, so that a
 *     replay after a preempt reproduces the same text on a deterministic engine
 * @param cancellation fired when the client goes away or the request fails
 * @param promptIndex the prompt's place in the client's list of prompts (0 for a single prompt):
 *     its choices are numbered {@code promptIndex * n + i} in the answer, and its engine
 *     requests get ids of their own ({@link #engineRequestId})
 */
public record CompletionJob(String requestId, long created, String responseModel, JsonInts prompt,
    String echoText, String suffix, int n, Integer maxTokens, boolean stream, boolean includeUsage,
    Integer logprobs, double temperature, Long seed, JsonObject engineFields,
    Cancellation cancellation, int promptIndex) {

  /** A request of one prompt. */
  public CompletionJob(String requestId, long created, String responseModel, JsonInts prompt,
      String echoText, String suffix, int n, Integer maxTokens, boolean stream,
      boolean includeUsage, Integer logprobs, double temperature, Long seed,
      JsonObject engineFields, Cancellation cancellation) {
    this(requestId, created, responseModel, prompt, echoText, suffix, n, maxTokens, stream,
        includeUsage, logprobs, temperature, seed, engineFields, cancellation, 0);
  }

  /**
   * This job as prompt {@code index} of a list whose answer is {@code first}'s: the same id and
   * creation time in every chunk.
   */
  public CompletionJob asPrompt(int index, CompletionJob first) {
    return new CompletionJob(first.requestId, first.created, responseModel, prompt, echoText,
        suffix, n, maxTokens, stream, includeUsage, logprobs, temperature, seed, engineFields,
        cancellation, index);
  }

  /** Choice {@code choice}'s index in the client's answer. */
  public int answerIndex(int choice) {
    return promptIndex * n + choice;
  }

  /**
   * The id of the job's first engine request (later attempts add {@code -2}, {@code -3}, ...):
   * the request's id, with {@code -p<index>} for the second and later prompts of a list.
   */
  public String engineRequestId() {
    return promptIndex == 0 ? requestId : requestId + "-p" + promptIndex;
  }

  /** The prompt's token ids (never written to). */
  public int[] promptIds() {
    return prompt.ids();
  }

  public boolean greedy() {
    return temperature == 0.0;
  }

  /**
   * Whether a resumed choice may continue from prompt + delivered tokens: greedy decoding without
   * frequency or presence penalties (which count the generated tokens, not the prompt's).
   */
  public boolean continuable() {
    return greedy() && isZero(engineFields.getValue("frequency_penalty"))
        && isZero(engineFields.getValue("presence_penalty"));
  }

  private static boolean isZero(Object value) {
    return value == null || (value instanceof Number n && n.doubleValue() == 0);
  }
}
