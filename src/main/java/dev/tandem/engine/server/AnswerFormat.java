package dev.tandem.engine.server;

import dev.tandem.chat.ChatAnswer;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * What a request's answer is written as: MLC's completion objects as they are, or, for
 * {@code /v1/chat/completions}, the chat objects {@link ChatAnswer} writes from them. The engine
 * runs a chat as the completion of its rendered prompt, so only the shape differs.
 */
interface AnswerFormat {

  /** MLC's completion objects, unchanged. */
  AnswerFormat COMPLETION = new AnswerFormat() {
    @Override
    public List<JsonObject> chunks(JsonObject completionChunk) {
      return List.of(completionChunk);
    }

    @Override
    public JsonObject whole(JsonObject completion) {
      return completion;
    }
  };

  /** The events to stream for one completion chunk (a usage-only chunk included); may be none. */
  List<JsonObject> chunks(JsonObject completionChunk);

  /** The whole answer for a whole completion response. */
  JsonObject whole(JsonObject completion);

  /** {@code chat.completion.chunk} / {@code chat.completion} objects. */
  static AnswerFormat chat(ChatAnswer answer) {
    return new AnswerFormat() {
      @Override
      public List<JsonObject> chunks(JsonObject completionChunk) {
        return answer.chunks(completionChunk);
      }

      @Override
      public JsonObject whole(JsonObject completion) {
        return answer.whole(completion);
      }
    };
  }
}
