package dev.tandem.router.api;

import dev.tandem.api.SseWriter;
import dev.tandem.router.dispatch.AnswerEnd;
import dev.tandem.router.dispatch.ClientChunk;
import dev.tandem.router.dispatch.ClientOutput;
import dev.tandem.router.dispatch.DrainWaiters;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The answer of a request that lists several prompts ({@link PromptBatch}), in front of the
 * transport's output: each prompt's flow writes into its {@link #part}. Streamed chunks go on as
 * they come (their choices already numbered in the whole answer); the answer completes once
 * every prompt's has, with one end that sums the usage and, for a whole answer, holds every
 * prompt's choices in order. The first failure fails the answer; the flows of the other prompts
 * then end as cancelled, and what they report is dropped. Used on the request's event loop only.
 */
final class BatchOutput {

  private final ClientOutput out;
  private final AnswerEnd[] ends;
  private final DrainWaiters drainWaiters = new DrainWaiters();
  private int open;
  private boolean done;
  private Throwable failure;

  BatchOutput(ClientOutput out, int prompts) {
    this.out = out;
    this.ends = new AnswerEnd[prompts];
    this.open = prompts;
  }

  /** Where prompt {@code index}'s flow writes. */
  ClientOutput part(int index) {
    return new Part(index);
  }

  /** What failed the answer, or null. */
  Throwable failure() {
    return failure;
  }

  private final class Part implements ClientOutput {
    private final int index;

    Part(int index) {
      this.index = index;
    }

    @Override
    public void write(ClientChunk chunk) {
      if (!done) {
        out.write(chunk);
      }
    }

    @Override
    public boolean writeQueueFull() {
      return out.writeQueueFull();
    }

    /** Every prompt's flow may wait for the same drain: one handler on the output calls them all. */
    @Override
    public void drainHandler(Handler<Void> handler) {
      drainWaiters.add(out, handler);
    }

    @Override
    public void complete(AnswerEnd end) {
      if (done || ends[index] != null) {
        return;
      }
      ends[index] = end;
      if (--open == 0) {
        done = true;
        out.complete(new BatchEnd(ends));
      }
    }

    @Override
    public void fail(Throwable error) {
      if (!done) {
        done = true;
        failure = error;
        out.fail(error);
      }
    }
  }

  /**
   * The end of every prompt's answer as one: the token counts summed, the usage without an
   * engine's record (no one engine made the answer), and the last chunk in the first prompt's
   * envelope (its id, created and model are the request's): a stream's usage chunk, or the whole
   * answer with every prompt's choices.
   */
  private static final class BatchEnd implements AnswerEnd {
    private final AnswerEnd[] ends;
    private JsonObject json;

    BatchEnd(AnswerEnd[] ends) {
      this.ends = ends;
    }

    @Override
    public int completionTokens() {
      int sum = 0;
      for (AnswerEnd e : ends) {
        sum += e.completionTokens();
      }
      return sum;
    }

    @Override
    public int totalTokens() {
      int sum = 0;
      for (AnswerEnd e : ends) {
        sum += e.totalTokens();
      }
      return sum;
    }

    @Override
    public JsonObject usage() {
      int completion = completionTokens();
      int total = totalTokens();
      return new JsonObject().put("prompt_tokens", total - completion)
          .put("completion_tokens", completion).put("total_tokens", total);
    }

    @Override
    public List<WholeChoice> wholeChoices() {
      List<WholeChoice> choices = new ArrayList<>();
      for (AnswerEnd e : ends) {
        choices.addAll(e.wholeChoices());
      }
      return choices;
    }

    @Override
    public JsonObject toJson() {
      if (json == null) {
        json = ends[0].toJson().copy(); // the envelope's keys in their order; usage last
        List<WholeChoice> all = wholeChoices(); // none for a stream
        if (!all.isEmpty()) {
          JsonArray choices = new JsonArray();
          all.forEach(c -> choices.add(c.toJson()));
          json.put("choices", choices);
        }
        json.put("usage", usage());
      }
      return json;
    }

    @Override
    public Buffer toSse() {
      return SseWriter.frame(toJson());
    }
  }
}
