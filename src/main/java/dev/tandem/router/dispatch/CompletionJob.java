package dev.tandem.router.dispatch;

import dev.tandem.router.upstream.Cancellation;
import io.vertx.core.json.JsonObject;

/**
 * One validated completion request as the dispatchers need it: the router's request id, the
 * prompt as token ids, the settings that shape attempts and resumption, and the fields passed on
 * to engines unchanged ({@code engineFields}: sampling, stop, logprobs, ...; never {@code user},
 * {@code prompt}, {@code n}, {@code max_tokens}, {@code echo} or {@code stream}, which each attempt
 * sets itself).
 *
 * @param requestId {@code cmpl-<32 hex>}, the id clients see and the base of engine request ids
 * @param created unix seconds, the same in every chunk
 * @param responseModel the {@code model} reported in answers
 * @param echoText the decoded prompt when {@code echo} was asked (the router echoes, engines never
 *     do, so a resumed choice cannot echo twice); null otherwise
 * @param maxTokens completion budget per choice, null for "until stop or context end"
 * @param temperature null when the client left it to the engine's default
 * @param seed null when the engine picks a random seed
 * @param penalties whether frequency/presence penalties are set (they see generated tokens)
 * @param cancellation fired when the client goes away or the request fails
 */
public record CompletionJob(String requestId, long created, String responseModel, int[] promptIds,
    String echoText, int n, Integer maxTokens, boolean stream, boolean includeUsage,
    Integer logprobs, Double temperature, Long seed, boolean penalties, JsonObject engineFields,
    Cancellation cancellation) {

  public boolean greedy() {
    return temperature != null && temperature == 0.0;
  }

  /** Sampling whose randomness is fixed by a seed: a replay reproduces it exactly. */
  public boolean seededSampling() {
    return !greedy() && seed != null;
  }
}
