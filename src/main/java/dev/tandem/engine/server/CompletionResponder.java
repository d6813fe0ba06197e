package dev.tandem.engine.server;

import dev.tandem.api.ErrorResponses;
import dev.tandem.api.SseWriter;
import dev.tandem.engine.sched.ChoiceDelta;
import dev.tandem.engine.sched.GenerationListener;
import dev.tandem.engine.sched.GenerationOutput;
import dev.tandem.engine.sched.TokenLogprob;
import io.vertx.core.Context;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one request's engine outputs as MLC's completion response: SSE chunks through the shared
 * {@link SseWriter} when streaming, else one aggregated CompletionResponse; a chat's answer goes
 * through its {@link AnswerFormat}, which rewrites those as chat objects. Engine callbacks are
 * moved onto the server's Vert.x context; the response starts with the first output, so a
 * failure before it still gets a proper status. A streaming
 * client that does not read fast enough holds its request in the engine (back-pressure) until its
 * connection drains, and is cut off, freeing the request, if it stays stalled past a limit.
 */
final class CompletionResponder implements GenerationListener {
  private static final Logger LOG = LoggerFactory.getLogger(CompletionResponder.class);

  /** What the responder asks of the engine when its streaming client falls behind. */
  interface ClientFlow {
    /** Stops (true) or resumes (false) scheduling the request that {@code listener} listens to. */
    void hold(GenerationListener listener, boolean hold);

    /** Ends the request and frees its KV. */
    void abort();
  }

  /** What the response looks like, from the client's request. */
  /** @param tokenIds each streamed choice names its tokens ({@code return_token_ids}, as vLLM) */
  record Shape(String id, String model, int n, boolean stream, boolean includeUsage,
      boolean logprobs, String echoText, String suffix, boolean debug, boolean tokenIds) {}

  private final Context context;
  private final HttpServerResponse response;
  private final SseWriter sse;
  private final Shape shape;
  private final AnswerFormat format;
  private final ClientFlow flow;
  private final long stallLimitMs;
  private final long created = System.currentTimeMillis() / 1000;
  private final List<StringBuilder> texts = new ArrayList<>();
  private final List<String> finishReasons = new ArrayList<>();
  private final List<List<TokenLogprob>> logprobs = new ArrayList<>();
  private boolean started;
  private boolean ended;
  private boolean held;
  private long stallTimer = -1;

  /** {@code stallLimitMs}: how long a held stream may stay stalled before it is cut off. */
  CompletionResponder(Context context, HttpServerResponse response, Shape shape,
      AnswerFormat format, ClientFlow flow, long stallLimitMs) {
    this.context = context;
    this.response = response;
    this.sse = new SseWriter(response);
    this.shape = shape;
    this.format = format;
    this.flow = flow;
    this.stallLimitMs = stallLimitMs;
    ensureChoice(shape.n() - 1);
  }

  /** The engine's n (from prep_recv for start_generate) wins over the body's; grow to fit it. */
  private void ensureChoice(int index) {
    while (texts.size() <= index) {
      texts.add(new StringBuilder(shape.echoText() == null ? "" : shape.echoText()));
      finishReasons.add(null);
      logprobs.add(new ArrayList<>());
    }
  }

  /** True once the response is complete or failed; a close after that is not an abort. */
  boolean ended() {
    return ended;
  }

  @Override
  public void onOutput(GenerationOutput output) {
    context.runOnContext(v -> handle(output));
  }

  /**
   * A stream that started is cut (reset), not ended with the router's error event
   * ({@link SseWriter#fail}): MLC's engine cuts its stream on a late error (reference §3.4), and
   * an engine speaks MLC's API.
   */
  @Override
  public void onFailure(Throwable failure) {
    context.runOnContext(v -> {
      if (!ended) {
        ended = true;
        ErrorResponses.send(response, failure);
      }
    });
  }

  private void handle(GenerationOutput output) {
    if (ended || response.closed()) {
      return;
    }
    if (shape.stream()) {
      stream(output);
    } else {
      aggregate(output);
    }
  }

  private void stream(GenerationOutput output) {
    if (!started) {
      started = true;
      sse.start();
      if (shape.echoText() != null) {
        JsonArray echo = new JsonArray();
        for (int i = 0; i < shape.n(); i++) {
          echo.add(CompletionJson.choice(i, shape.echoText(), null, null));
        }
        send(echo);
      }
    }
    JsonArray choices = new JsonArray();
    for (ChoiceDelta d : output.choices()) {
      ensureChoice(d.index());
      JsonObject lp = shape.logprobs() && d.logprobs() != null
          ? CompletionJson.logprobs(d.logprobs()) : null;
      JsonObject choice = CompletionJson.choice(d.index(), d.text(),
          d.finishReason() == null ? null : d.finishReason().wire(), lp);
      if (shape.tokenIds()) {
        // exactly the tokens behind this delta's text: a router continues from them after a failure
        JsonArray ids = new JsonArray();
        for (int id : d.tokenIds()) {
          ids.add(id);
        }
        choice.put("token_ids", ids);
      }
      choices.add(choice);
    }
    if (!choices.isEmpty()) {
      send(choices);
    }
    if (output.isFinal()) {
      if (shape.suffix() != null && !shape.suffix().isEmpty()) {
        JsonArray suffix = new JsonArray();
        for (int i = 0; i < texts.size(); i++) {
          suffix.add(CompletionJson.choice(i, shape.suffix(), null, null));
        }
        send(suffix);
      }
      JsonObject usage = null;
      if (shape.includeUsage()) {
        List<JsonObject> last = format.chunks(
            chunk(new JsonArray(), CompletionJson.usage(output.usage(), shape.debug())));
        last.subList(0, last.size() - 1).forEach(sse::write);
        usage = last.get(last.size() - 1);
      }
      ended = true;
      cancelStallTimer();
      sse.end(usage);
      return;
    }
    if (!held && sse.writeQueueFull()) {
      holdUntilDrained();
    }
  }

  /**
   * The client is behind (the connection's write queue is full): stop the engine producing more
   * for it until the queue drains, instead of buffering its output in memory without bound.
   */
  private void holdUntilDrained() {
    held = true;
    flow.hold(this, true);
    sse.drainHandler(v -> {
      if (held && !ended) {
        held = false;
        cancelStallTimer();
        flow.hold(this, false);
      }
    });
    stallTimer = context.owner().setTimer(stallLimitMs, t -> {
      stallTimer = -1;
      if (held && !ended && !response.closed()) {
        ended = true;
        LOG.info("request {}: the client read nothing for {} ms; closing its stream and freeing the"
            + " request", shape.id(), stallLimitMs);
        flow.abort();
        response.reset();
      }
    });
  }

  private void cancelStallTimer() {
    if (stallTimer >= 0) {
      context.owner().cancelTimer(stallTimer);
      stallTimer = -1;
    }
  }

  private void send(JsonArray choices) {
    format.chunks(chunk(choices, null)).forEach(sse::write);
  }

  private JsonObject chunk(JsonArray choices, JsonObject usage) {
    return CompletionJson.response(shape.id(), choices, created, shape.model(), usage);
  }

  private void aggregate(GenerationOutput output) {
    for (ChoiceDelta d : output.choices()) {
      ensureChoice(d.index());
      texts.get(d.index()).append(d.text());
      if (d.finishReason() != null && finishReasons.get(d.index()) == null) {
        finishReasons.set(d.index(), d.finishReason().wire());
      }
      if (d.logprobs() != null) {
        logprobs.get(d.index()).addAll(d.logprobs());
      }
    }
    if (!output.isFinal()) {
      return;
    }
    JsonArray choices = new JsonArray();
    for (int i = 0; i < texts.size(); i++) {
      if (shape.suffix() != null) {
        texts.get(i).append(shape.suffix());
      }
      JsonObject lp = shape.logprobs() ? CompletionJson.logprobs(logprobs.get(i)) : null;
      choices.add(CompletionJson.choice(i, texts.get(i).toString(), finishReasons.get(i), lp));
    }
    JsonObject body = CompletionJson.response(shape.id(), choices, created, shape.model(),
        CompletionJson.usage(output.usage(), shape.debug()));
    ended = true;
    started = true;
    response.putHeader("content-type", "application/json").end(format.whole(body).encode());
  }
}
