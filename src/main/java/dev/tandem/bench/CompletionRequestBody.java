package dev.tandem.bench;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Builds the request body for a planned request: greedy (temperature 0), a fixed
 * {@code max_tokens}, and {@code debug_config.ignore_eos} so that every answer has exactly
 * {@code max_tokens} tokens (MLC honours it on engines started with {@code --enable-debug}). For
 * {@code /v1/completions} the prompt; for {@code /v1/chat/completions} the messages: the shared
 * prefix as the system message, then the conversation's turns, user and assistant by turns.
 */
public final class CompletionRequestBody {

  private CompletionRequestBody() {
  }

  /**
   * @param model null to leave the field out (a single-model server accepts that)
   * @param stream whether to ask for SSE; streams also ask for the final usage record
   */
  public static JsonObject json(PlannedRequest r, String model, boolean stream, boolean ignoreEos) {
    return json(r, model, stream, ignoreEos, BenchApi.COMPLETIONS);
  }

  /** As {@link #json(PlannedRequest, String, boolean, boolean)}, for {@code api}. */
  public static JsonObject json(PlannedRequest r, String model, boolean stream, boolean ignoreEos,
      BenchApi api) {
    JsonObject body = new JsonObject();
    if (model != null) {
      body.put("model", model);
    }
    if (api == BenchApi.CHAT) {
      if (r.turns() == null) {
        throw new IllegalArgumentException("a chat needs a text prompt, not token ids");
      }
      JsonArray messages = new JsonArray();
      if (r.system() != null) {
        messages.add(message("system", r.system()));
      }
      for (int i = 0; i < r.turns().size(); i++) {
        messages.add(message(i % 2 == 0 ? "user" : "assistant", r.turns().get(i)));
      }
      body.put("messages", messages);
    } else if (r.hasIdPrompt()) {
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

  public static Buffer buffer(PlannedRequest r, String model, boolean stream, boolean ignoreEos,
      BenchApi api) {
    return json(r, model, stream, ignoreEos, api).toBuffer();
  }

  private static JsonObject message(String role, String content) {
    return new JsonObject().put("role", role).put("content", content);
  }
}
