package dev.tandem.bench;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Builds the {@code POST /v1/completions} body for a planned request: greedy (temperature 0), a
 * fixed {@code max_tokens}, and {@code debug_config.ignore_eos} so that every answer has exactly
 * {@code max_tokens} tokens (MLC honours it on engines started with {@code --enable-debug}).
 */
public final class CompletionRequestBody {

  private CompletionRequestBody() {
  }

  /**
   * @param model null to leave the field out (a single-model server accepts that)
   * @param stream whether to ask for SSE; streams also ask for the final usage record
   */
  public static JsonObject json(PlannedRequest r, String model, boolean stream, boolean ignoreEos) {
    JsonObject body = new JsonObject();
    if (model != null) {
      body.put("model", model);
    }
    if (r.hasIdPrompt()) {
      JsonArray ids = new JsonArray();
      for (int id : r.promptIds()) {
        ids.add(id);
      }
      body.put("prompt", ids);
    } else {
      body.put("prompt", r.promptText());
    }
    body.put("max_tokens", r.maxTokens()).put("temperature", 0.0).put("n", 1).put("stream", stream);
    if (stream) {
      body.put("stream_options", new JsonObject().put("include_usage", true));
    }
    if (ignoreEos) {
      body.put("debug_config", new JsonObject().put("ignore_eos", true));
    }
    return body;
  }

  public static Buffer buffer(PlannedRequest r, String model, boolean stream, boolean ignoreEos) {
    return json(r, model, stream, ignoreEos).toBuffer();
  }
}
