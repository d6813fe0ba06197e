package dev.tandem.router.dispatch;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The JSON shapes clients receive (reference §3.3, §3.4), built in one place so streamed chunks
 * and whole answers agree: same id, created, model and object type.
 */
final class ClientChunks {

  private final CompletionJob job;

  ClientChunks(CompletionJob job) {
    this.job = job;
  }

  JsonObject delta(int index, String text, JsonObject logprobs, String finishReason) {
    JsonObject choice = new JsonObject().put("index", index).put("text", text)
        .put("logprobs", logprobs).put("finish_reason", finishReason);
    return envelope(new JsonArray().add(choice), null);
  }

  JsonObject usageChunk(JsonObject usage) {
    return envelope(new JsonArray(), usage);
  }

  JsonObject response(ChoiceLedger ledger, JsonObject usage) {
    JsonArray choices = new JsonArray();
    for (int i = 0; i < ledger.size(); i++) {
      ChoiceLedger.Choice c = ledger.get(i);
      String text = (job.echoText() == null ? "" : job.echoText()) + c.text
          + (job.suffix() == null ? "" : job.suffix());
      choices.add(new JsonObject().put("index", i).put("text", text)
          .put("logprobs", job.logprobs() == null ? null : c.logprobs)
          .put("finish_reason", c.finishReason));
    }
    return envelope(choices, usage);
  }

  static JsonObject usage(int promptTokens, int completionTokens) {
    return new JsonObject().put("prompt_tokens", promptTokens)
        .put("completion_tokens", completionTokens)
        .put("total_tokens", promptTokens + completionTokens);
  }

  private JsonObject envelope(JsonArray choices, JsonObject usage) {
    return new JsonObject().put("id", job.requestId()).put("object", "text_completion")
        .put("created", job.created()).put("model", job.responseModel()).put("choices", choices)
        .put("usage", usage);
  }
}
