package dev.tandem.router.dispatch;

import dev.tandem.api.FastJson;
import dev.tandem.api.JsonBytes;
import dev.tandem.api.SseWriter;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * How a request's answer ends, as the flow hands it to its output: the token counts, the usage,
 * and the chunk the client gets last. For a stream, whose client already has the text, that is
 * the usage chunk (the envelope, {@code "choices": []} and the usage), sent only if the client
 * asked for usage; for a whole answer, the whole aggregated completion. The flow's own ends
 * ({@link ClientChunks#end}) build their JSON only when an output asks for it and write a
 * stream's usage chunk straight as SSE bytes, and a whole answer straight as JSON bytes.
 */
public interface AnswerEnd extends ClientChunk {

  int completionTokens();

  int totalTokens();

  /** The request's usage record ({@code prompt_tokens}, ..., {@code extra} when there is one). */
  JsonObject usage();

  /**
   * {@link #toJson()}'s bytes, as a whole answer's HTTP body; the flow's own ends write a
   * completion's straight as bytes.
   */
  default Buffer toJsonBuffer() {
    return FastJson.toBuffer(toJson());
  }

  /** One choice of a whole answer, as the client's completion has it. */
  record WholeChoice(int index, String text, String finishReason, JsonObject logprobs) {

    /** The choice in a completion's {@code choices}, its keys in the answer's order. */
    public JsonObject toJson() {
      return new JsonObject().put("index", index).put("text", text).put("logprobs", logprobs)
          .put("finish_reason", finishReason);
    }
  }

  /**
   * A whole answer's choices, in order (a stream's end has none): read from {@link #toJson()},
   * unless the end has them at hand.
   */
  default List<WholeChoice> wholeChoices() {
    List<WholeChoice> choices = new ArrayList<>();
    JsonArray array = toJson().getJsonArray("choices", new JsonArray());
    for (int i = 0; i < array.size(); i++) {
      JsonObject c = array.getJsonObject(i);
      choices.add(new WholeChoice(c.getInteger("index", i), c.getString("text", ""),
          c.getString("finish_reason"), c.getJsonObject("logprobs")));
    }
    return choices;
  }

  /**
   * {@link #usage()} appended to {@code w} as JSON; false (with part of it written) where only
   * the general encoder writes a value. The flow's own ends splice the engine's record.
   */
  default boolean writeUsage(JsonBytes w) {
    return w.value(usage());
  }

  /** An end whose last chunk is {@code json} (a chat's shape), with {@code counted}'s tokens. */
  static AnswerEnd of(JsonObject json, AnswerEnd counted) {
    return new AnswerEnd() {
      @Override
      public int completionTokens() {
        return counted.completionTokens();
      }

      @Override
      public int totalTokens() {
        return counted.totalTokens();
      }

      @Override
      public JsonObject usage() {
        return counted.usage();
      }

      @Override
      public JsonObject toJson() {
        return json;
      }

      @Override
      public Buffer toSse() {
        return SseWriter.frame(json);
      }
    };
  }
}
