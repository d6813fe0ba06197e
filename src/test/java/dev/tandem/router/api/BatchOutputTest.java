package dev.tandem.router.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.tandem.router.dispatch.AnswerEnd;
import dev.tandem.router.dispatch.ClientChunk;
import dev.tandem.router.dispatch.ClientOutput;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The answer of a list of prompts: one end once every prompt's ended (usage summed, choices in
 * order), the first failure alone reaches the client, and one drain wakes every prompt's flow.
 * The whole path through real engines is in RouterEndToEndIT; failures in RoundRobinFaultsTest.
 */
class BatchOutputTest {

  /** What the transport's output was told. */
  static final class Recorded implements ClientOutput {
    final List<ClientChunk> written = new ArrayList<>();
    final List<AnswerEnd> completed = new ArrayList<>();
    final List<Throwable> failed = new ArrayList<>();
    Handler<Void> drain;

    @Override
    public void write(ClientChunk chunk) {
      written.add(chunk);
    }

    @Override
    public boolean writeQueueFull() {
      return drain != null;
    }

    @Override
    public void drainHandler(Handler<Void> handler) {
      drain = handler;
    }

    @Override
    public void complete(AnswerEnd end) {
      completed.add(end);
    }

    @Override
    public void fail(Throwable error) {
      failed.add(error);
    }
  }

  /** A prompt's whole answer: its choices and usage in the completion's envelope. */
  static AnswerEnd whole(int firstIndex, int prompt, int completion, String... texts) {
    JsonArray choices = new JsonArray();
    for (int i = 0; i < texts.length; i++) {
      choices.add(new JsonObject().put("index", firstIndex + i).put("text", texts[i])
          .put("logprobs", null).put("finish_reason", "length"));
    }
    return new JsonEnd(new JsonObject().put("id", "cmpl-1").put("object", "text_completion")
        .put("created", 7).put("model", "m").put("choices", choices)
        .put("usage", new JsonObject().put("prompt_tokens", prompt)
            .put("completion_tokens", completion).put("total_tokens", prompt + completion)));
  }

  @Test
  void theAnswerEndsOnceEveryPromptsHasWithTheirChoicesInOrderAndUsageSummed() {
    Recorded out = new Recorded();
    BatchOutput batch = new BatchOutput(out, 2);
    ClientOutput first = batch.part(0);
    ClientOutput second = batch.part(1);
    second.complete(whole(2, 5, 6, "c", "d"));
    assertEquals(0, out.completed.size(), "the first prompt is still running");
    first.complete(whole(0, 3, 4, "a", "b"));
    assertEquals(1, out.completed.size());
    AnswerEnd end = out.completed.get(0);
    assertEquals(10, end.completionTokens());
    assertEquals(18, end.totalTokens());
    JsonObject json = end.toJson();
    assertEquals(List.of("id", "object", "created", "model", "choices", "usage"),
        new ArrayList<>(json.fieldNames()));
    JsonArray choices = json.getJsonArray("choices");
    assertEquals(4, choices.size());
    for (int i = 0; i < 4; i++) {
      assertEquals(i, choices.getJsonObject(i).getInteger("index"));
      assertEquals(String.valueOf((char) ('a' + i)), choices.getJsonObject(i).getString("text"));
    }
    assertEquals(new JsonObject().put("prompt_tokens", 8).put("completion_tokens", 10)
        .put("total_tokens", 18), json.getJsonObject("usage"));
    assertEquals(json, new JsonObject(end.toJsonBuffer()));
    assertNull(batch.failure());
  }

  @Test
  void theFirstFailureAloneReachesTheClientAndLaterReportsAreDropped() {
    Recorded out = new Recorded();
    BatchOutput batch = new BatchOutput(out, 3);
    batch.part(0).complete(whole(0, 1, 1, "a"));
    IllegalStateException cause = new IllegalStateException("engine said no");
    batch.part(2).fail(cause);
    batch.part(1).fail(new RuntimeException("cancelled"));
    batch.part(1).complete(whole(1, 1, 1, "b"));
    batch.part(1).write(whole(1, 1, 1, "late"));
    assertEquals(List.of(cause), out.failed);
    assertEquals(0, out.completed.size());
    assertEquals(0, out.written.size());
    assertSame(cause, batch.failure());
  }

  @Test
  void oneDrainOfTheClientWakesEveryPromptWaitingForIt() {
    Recorded out = new Recorded();
    BatchOutput batch = new BatchOutput(out, 2);
    List<String> woken = new ArrayList<>();
    batch.part(0).drainHandler(v -> woken.add("first"));
    Handler<Void> registered = out.drain;
    batch.part(1).drainHandler(v -> woken.add("second"));
    assertSame(registered, out.drain, "one handler on the client's output for both");
    out.drain.handle(null);
    assertEquals(List.of("first", "second"), woken);
    batch.part(1).drainHandler(v -> woken.add("again"));
    out.drain.handle(null);
    assertEquals(List.of("first", "second", "again"), woken);
  }
}
