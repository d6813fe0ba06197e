package dev.tandem.router.api;

import dev.tandem.api.ApiError;
import dev.tandem.api.JsonFields;
import dev.tandem.router.dispatch.CompletionJob;
import dev.tandem.router.upstream.Cancellation;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A completion whose {@code prompt} is a list of prompts (strings, or lists of token ids), as
 * OpenAI and vLLM take it: one answer with {@code n} choices per prompt, prompt {@code k}'s
 * numbered {@code k * n} to {@code k * n + n - 1}, and usage summed over all of them. Engines
 * take one prompt per request (MLC refuses a list), so each prompt runs as a completion of its
 * own ({@link CompletionJob#promptIndex}) with the request's other fields, into one
 * {@link BatchOutput}. The prompts are checked and tokenized before any runs: one that is
 * invalid refuses the whole request, naming it.
 */
final class PromptBatch {

  /** The most prompts one request may list. */
  static final int MAX_PROMPTS = 1024;

  private PromptBatch() {}

  /**
   * The prompts of a {@code prompt} that lists several (its first element a string or a list),
   * null for one prompt (a string, token ids, or anything else {@code CompletionRequest} judges).
   */
  static JsonArray prompts(Object prompt) {
    if (!(prompt instanceof JsonArray array) || array.isEmpty()) {
      return null;
    }
    Object first = array.getList().get(0);
    return first instanceof String || first instanceof List || first instanceof JsonArray
        ? array : null;
  }

  /** Checks and tokenizes every prompt of {@code prompts}, then makes the one request they are. */
  static Future<PreparedRequest> prepare(CompletionService service, JsonObject body,
      JsonArray prompts, Cancellation cancellation) {
    if (prompts.size() > MAX_PROMPTS) {
      return Future.failedFuture(ApiError.invalid("prompt", "too_many_prompts",
          "\"prompt\" lists " + prompts.size() + " prompts; at most " + MAX_PROMPTS
              + " are taken in one request"));
    }
    for (int k = 0; k < prompts.size(); k++) {
      Object p = prompts.getValue(k);
      if (!(p instanceof String || p instanceof JsonArray ids && prompts(ids) == null)) {
        return Future.failedFuture(ApiError.invalid("prompt", "invalid_type",
            "\"prompt\" lists prompts, each a string or an array of token ids; element " + k
                + " is " + (p instanceof JsonArray ? "a list of prompts"
                    : JsonFields.describe(p))));
      }
    }
    if (prompts.size() == 1) {
      return service.prepareRequest(withPrompt(body, prompts.getValue(0)), cancellation);
    }
    List<Future<CompletionJob>> jobs = new ArrayList<>(prompts.size());
    for (int k = 0; k < prompts.size(); k++) {
      jobs.add(service.prepare(withPrompt(body, prompts.getValue(k)), cancellation));
    }
    return Future.join(jobs).transform(ar -> {
      for (int k = 0; k < jobs.size(); k++) {
        if (jobs.get(k).failed()) { // the first invalid prompt in the list, whichever failed first
          return Future.failedFuture(naming(k, jobs.get(k).cause()));
        }
      }
      return Future.succeededFuture(request(service, jobs));
    });
  }

  private static PreparedRequest request(CompletionService service,
      List<Future<CompletionJob>> prepared) {
    CompletionJob first = prepared.get(0).result();
    List<CompletionJob> jobs = new ArrayList<>(prepared.size());
    long tokens = 0;
    for (int k = 0; k < prepared.size(); k++) {
      CompletionJob job = prepared.get(k).result().asPrompt(k, first);
      jobs.add(job);
      tokens += CompletionService.tokenEstimate(job);
    }
    return new PreparedRequest(first.requestId(), first.stream(), first.includeUsage(), tokens,
        (output, clock) -> service.executeAll(jobs, output, clock));
  }

  /** {@code body} with {@code prompt} as its one prompt (the other fields shared, not copied). */
  private static JsonObject withPrompt(JsonObject body, Object prompt) {
    JsonObject one = new JsonObject();
    for (Map.Entry<String, Object> e : body.getMap().entrySet()) {
      one.put(e.getKey(), e.getValue());
    }
    return one.put("prompt", prompt);
  }

  /** A prompt's refusal, saying which prompt it was where it is about the prompt. */
  private static Throwable naming(int k, Throwable error) {
    if (error instanceof ApiError e && e.getClass() == ApiError.class
        && "prompt".equals(e.param())) {
      return new ApiError(e.status(), e.type(), "prompt " + k + " of the list: " + e.getMessage(),
          e.param(), e.code());
    }
    return error;
  }
}
