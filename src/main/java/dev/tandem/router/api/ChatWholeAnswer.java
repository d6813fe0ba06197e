package dev.tandem.router.api;

import dev.tandem.api.FastJson;
import dev.tandem.api.JsonBytes;
import dev.tandem.api.SseWriter;
import dev.tandem.chat.ChatAnswer;
import dev.tandem.chat.ChatResponses;
import dev.tandem.router.dispatch.AnswerEnd;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A chat's whole (non-streaming) answer, as its output hands it on: the {@code chat.completion}
 * of the completion's choices, written straight as bytes with the completion's usage spliced in
 * ({@link ChatAnswer#writeWhole}); its JSON built only when something asks for it, or where a
 * value needs the general encoder. Token counts are the completion's.
 */
final class ChatWholeAnswer implements AnswerEnd {
  private final ChatAnswer answer;
  private final AnswerEnd completion;
  private final List<ChatResponses.Choice> choices;
  private JsonObject json;

  ChatWholeAnswer(ChatAnswer answer, AnswerEnd completion) {
    this.answer = answer;
    this.completion = completion;
    List<WholeChoice> whole = completion.wholeChoices();
    this.choices = new ArrayList<>(whole.size());
    for (WholeChoice c : whole) {
      choices.add(answer.choice(c.index(), c.text(), c.finishReason(), c.logprobs()));
    }
  }

  @Override
  public int completionTokens() {
    return completion.completionTokens();
  }

  @Override
  public int totalTokens() {
    return completion.totalTokens();
  }

  @Override
  public JsonObject usage() {
    return completion.usage();
  }

  @Override
  public JsonObject toJson() {
    if (json == null) {
      json = answer.whole(choices, completion.usage());
    }
    return json;
  }

  @Override
  public Buffer toJsonBuffer() {
    JsonBytes w = JsonBytes.threadWriter();
    if (answer.writeWhole(w, choices, completion::writeUsage)) {
      return w.toBuffer();
    }
    return FastJson.toBuffer(toJson()); // a value only the general encoder writes
  }

  @Override
  public Buffer toSse() {
    return SseWriter.frame(toJson());
  }
}
