package dev.tandem.router.dispatch;

import dev.tandem.router.upstream.ChunkSink;
import dev.tandem.router.upstream.EngineChunk;
import dev.tandem.router.upstream.EngineErrorBody;
import dev.tandem.router.upstream.EngineStream;
import dev.tandem.router.upstream.UpstreamException;
import dev.tandem.router.upstream.UsageExtra;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relays one engine stream into the request's flow, chunk by chunk: maps engine choice indices to
 * client choices, skips what a replay regenerates, turns {@code finish_reason: "preempt"} into a
 * choice to resume (never forwarded, reference §4.6 step 6), and pauses the engine stream while
 * the client's write queue is full. Records what each choice received (text, token ids) for
 * resumption, and checks that a replay reproduces what the client already has
 * ({@link ReplayCheck}) before anything new passes. Completes when the engine ended its answer;
 * fails if it broke off before every choice finished, or if a replay differs.
 */
final class ChunkRelay implements ChunkSink {

  private static final Logger LOG = LoggerFactory.getLogger(ChunkRelay.class);
  static final String PREEMPT = "preempt";
  private static final int PROMPT_TAIL = 8;

  /** Per engine choice: where it goes, how much of a replay is still to skip, what it got. */
  private static final class RouteState {
    final ChoiceRoute route;
    int skipChars;
    int skipTokens;
    boolean ended;
    boolean finished;
    final StringBuilder text = new StringBuilder();
    int[] chunkIds = new int[16];
    int chunkIdCount;
    boolean chunkIdsComplete = true;
    int[] outputIds;
    /** Set while a replay has still to prove that it reproduces the delivered text. */
    ReplayCheck check;

    RouteState(ChoiceRoute route) {
      this.route = route;
      this.skipChars = route.skipChars();
      this.skipTokens = route.skipTokens();
      boolean somethingToCheck = route.delivered() != null && (!route.delivered().isEmpty()
          || (route.deliveredIds() != null && route.deliveredIds().length > 0));
      this.check = somethingToCheck && !route.drop()
          ? new ReplayCheck(route.delivered(), route.deliveredIds()) : null;
    }
  }

  private final Attempt attempt;
  private final EngineStream stream;
  private final RouteState[] routes;

  private ChunkRelay(Attempt attempt, EngineStream stream) {
    this.attempt = attempt;
    this.stream = stream;
    List<ChoiceRoute> specRoutes = attempt.spec().routes();
    this.routes = new RouteState[specRoutes.size()];
    for (int i = 0; i < routes.length; i++) {
      routes[i] = new RouteState(specRoutes.get(i));
    }
  }

  static Future<Void> relay(Attempt attempt, EngineStream stream) {
    ChunkRelay relay = new ChunkRelay(attempt, stream);
    stream.start(relay);
    return stream.end().transform(ar -> {
      Future<Void> outcome = ar.succeeded() ? relay.onEnd(ar.result()) : Future.failedFuture(ar.cause());
      relay.recordOutcomes();
      return outcome;
    });
  }

  /** A whole chunk: an error, a usage record, any number of choices. */
  @Override
  public void accept(EngineChunk chunk) {
    if (chunk.error() != null) {
      throw UpstreamException.engineError(stream.engineId(), "generation", 500,
          EngineErrorBody.parse(chunk.error()).message());
    }
    if (chunk.completionTokens() != null || chunk.usageExtra() != null) {
      onUsage(chunk);
    }
    List<EngineChunk.Choice> choices = chunk.choices();
    for (int i = 0, n = choices.size(); i < n; i++) {
      EngineChunk.Choice c = choices.get(i);
      onChoice(c.index(), c.text(), c.finishReason(), c.tokenIds(), c.logprobs());
    }
    pauseWhileFull();
  }

  /** A per-token chunk (most of a stream), as its fields: no chunk object made for it. */
  @Override
  public void token(int index, String text, String finishReason, int[] tokenIds) {
    onChoice(index, text, finishReason, tokenIds, null);
    pauseWhileFull();
  }

  private void pauseWhileFull() {
    if (attempt.target().writeQueueFull()) {
      stream.pause();
      attempt.target().onDrain(v -> stream.resume());
    }
  }

  /** The usage record; builtin engines in debug mode list every generated token id per choice. */
  private void onUsage(EngineChunk chunk) {
    if (chunk.completionTokens() != null) {
      attempt.result().engineCompletionTokens(chunk.completionTokens());
    }
    UsageExtra extra = chunk.usageExtra();
    if (extra != null) {
      attempt.result().engineUsageExtra(extra);
    }
    JsonArray perChoice = extra == null ? null : extra.outputTokenIds();
    if (perChoice != null) {
      for (int i = 0; i < Math.min(perChoice.size(), routes.length); i++) {
        routes[i].outputIds = ids(perChoice.getJsonArray(i));
      }
    }
  }

  private void onChoice(int index, String text, String finish, int[] tokenIds,
      JsonObject logprobs) {
    if (index < 0 || index >= routes.length) {
      throw UpstreamException.protocol(stream.engineId(), "generation",
          "choice index " + index + " but " + routes.length + " choices were asked");
    }
    RouteState rs = routes[index];
    if (rs.route.drop() || rs.ended) {
      return;
    }
    boolean preempt = PREEMPT.equals(finish);
    // A preempt's last delta carries the tokens whose text the engine still held back: not delivered.
    if (!(preempt && text.isEmpty())) {
      trackIds(rs, tokenIds, text);
      checkReplay(rs, tokenIds, text, finish != null && !preempt);
    }
    ChoiceDelta delta = skipReplayed(rs, new ChoiceDelta(text, logprobs, preempt ? null : finish));
    int client = rs.route.clientIndex();
    if (!delta.isEmpty()) {
      rs.text.append(delta.text());
      attempt.target().deliver(client, delta);
      attempt.result().delivered();
    }
    if (finish != null) {
      rs.ended = true;
      rs.finished = !preempt;
      if (preempt) {
        attempt.result().preempted(client);
      }
    }
  }

  /** Fails the stream as soon as a replay differs from what its client already has. */
  private void checkReplay(RouteState rs, int[] ids, String text, boolean ended) {
    if (rs.check == null) {
      return;
    }
    String difference = rs.check.next(ids, text, ended);
    if (difference != null) {
      attempt.result().replayChecked(false);
      throw UpstreamException.diverged(stream.engineId(), rs.route.clientIndex(), difference);
    }
    if (rs.check.complete()) {
      attempt.result().replayChecked(true);
      rs.check = null;
    }
  }

  private static void trackIds(RouteState rs, int[] ids, String text) {
    if (ids == null) {
      if (!text.isEmpty()) {
        rs.chunkIdsComplete = false;
      }
      return;
    }
    if (rs.chunkIdCount + ids.length > rs.chunkIds.length) {
      rs.chunkIds = Arrays.copyOf(rs.chunkIds,
          Math.max(rs.chunkIdCount + ids.length, 2 * rs.chunkIds.length));
    }
    System.arraycopy(ids, 0, rs.chunkIds, rs.chunkIdCount, ids.length);
    rs.chunkIdCount += ids.length;
  }

  /** Cuts from the delta what the client already has (a replay regenerates from the start). */
  private static ChoiceDelta skipReplayed(RouteState rs, ChoiceDelta d) {
    if (rs.skipChars == 0 && rs.skipTokens == 0) {
      return d;
    }
    String text = d.text();
    int cut = Math.min(rs.skipChars, text.length());
    rs.skipChars -= cut;
    text = text.substring(cut);
    int drop = Math.min(rs.skipTokens, d.logprobCount());
    rs.skipTokens -= drop;
    JsonObject logprobs = drop == 0 ? d.logprobs() : dropFirst(d.logprobs(), drop);
    return new ChoiceDelta(text, logprobs, d.finishReason());
  }

  private static JsonObject dropFirst(JsonObject logprobs, int n) {
    JsonObject out = logprobs.copy();
    for (String key : out.fieldNames()) {
      if (out.getValue(key) instanceof JsonArray a) {
        out.put(key, new JsonArray(a.getList().subList(Math.min(n, a.size()), a.size())));
      }
    }
    return out;
  }

  private static int[] ids(JsonArray ids) {
    if (ids == null) {
      return null;
    }
    int[] out = new int[ids.size()];
    List<?> raw = ids.getList(); // numbers as parsed: getValue would wrap each one
    for (int i = 0; i < out.length; i++) {
      out[i] = ((Number) raw.get(i)).intValue();
    }
    return out;
  }

  private Future<Void> onEnd(boolean sawDone) {
    for (RouteState rs : routes) {
      if (rs.route.drop() || rs.ended) {
        continue;
      }
      if (!sawDone) {
        return Future.failedFuture(UpstreamException.broken(stream.engineId(), "generation",
            "the stream ended before choice " + rs.route.clientIndex() + " finished"));
      }
      if (rs.check != null) {
        attempt.result().replayChecked(false);
        return Future.failedFuture(UpstreamException.diverged(stream.engineId(),
            rs.route.clientIndex(), "the replay ended before reproducing what the client has"));
      }
      // [DONE] without a finish reason: an engine bug, but the answer is complete.
      LOG.warn("engine {} ended request {} without a finish reason for choice {}",
          stream.engineId(), attempt.engineRequestId(), rs.route.clientIndex());
      rs.ended = true;
      rs.finished = true;
      attempt.target().deliver(rs.route.clientIndex(), new ChoiceDelta("", null, "stop"));
    }
    return Future.succeededFuture();
  }

  private void recordOutcomes() {
    int[] prompt = attempt.spec().promptIds();
    int[] tail = Arrays.copyOfRange(prompt, Math.max(0, prompt.length - PROMPT_TAIL), prompt.length);
    for (RouteState rs : routes) {
      if (!rs.route.drop()) {
        attempt.result().outcome(new AttemptResult.ChoiceOutcome(rs.route.clientIndex(),
            rs.text.toString(),
            rs.chunkIdsComplete ? Arrays.copyOf(rs.chunkIds, rs.chunkIdCount) : null, rs.outputIds,
            tail, rs.finished));
      }
    }
  }
}
