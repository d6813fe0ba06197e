package dev.tandem.router.api;

import dev.tandem.chat.ChatAnswer;
import dev.tandem.router.dispatch.AnswerEnd;
import dev.tandem.router.dispatch.ClientChunk;
import dev.tandem.router.dispatch.ClientOutput;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * A chat's answer in front of the transport's output: the completion flow writes completion
 * chunks and the whole completion, as for any request; the client receives
 * {@code chat.completion.chunk} objects (the usage chunk last, if asked) or the
 * {@code chat.completion}, written by {@link ChatAnswer}.
 */
final class ChatOutput implements ClientOutput {

  private final ChatAnswer answer;
  private final ClientOutput out;
  private final boolean stream;

  ChatOutput(ChatAnswer answer, ClientOutput out, boolean stream) {
    this.answer = answer;
    this.out = out;
    this.stream = stream;
  }

  @Override
  public void write(ClientChunk chunk) {
    ClientChunk.OfChoice d = chunk.ofChoice();
    if (d != null && !d.text().isEmpty() && d.logprobs() == null && d.finishReason() == null
        && answer.plainContent(d.index())) {
      out.write(new ChatContentChunk(answer, d.index(), d.text())); // the per-token path
      return;
    }
    // a choice's delta by its fields; any other chunk through its completion JSON
    List<JsonObject> chat = d != null
        ? answer.chunks(d.index(), d.text(), d.logprobs(), d.finishReason())
        : answer.chunks(chunk.toJson());
    for (JsonObject c : chat) {
      out.write(new JsonChunk(c));
    }
  }

  @Override
  public boolean writeQueueFull() {
    return out.writeQueueFull();
  }

  @Override
  public void drainHandler(Handler<Void> handler) {
    out.drainHandler(handler);
  }

  /**
   * A stream's outputs send the end's chunk as the usage chunk: the chat one, for a chat; a
   * whole answer is the {@code chat.completion} ({@link ChatWholeAnswer}).
   */
  @Override
  public void complete(AnswerEnd end) {
    out.complete(stream ? AnswerEnd.of(answer.usageChunk(end.usage()), end)
        : new ChatWholeAnswer(answer, end));
  }

  @Override
  public void fail(Throwable error) {
    out.fail(error);
  }
}
