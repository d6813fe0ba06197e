package dev.tandem.router.dispatch;

import static dev.tandem.router.dispatch.ClientChunks.CHOICE_START;
import static dev.tandem.router.dispatch.ClientChunks.FINISH;
import static dev.tandem.router.dispatch.ClientChunks.LOGPROBS;
import static dev.tandem.router.dispatch.ClientChunks.TEXT;
import static dev.tandem.router.dispatch.ClientChunks.bytes;

import dev.tandem.api.FastJson;
import dev.tandem.api.JsonBytes;
import dev.tandem.api.SseWriter;
import dev.tandem.router.upstream.UsageExtra;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A completion's end, as {@link ClientChunks#end} makes it for the flow to hand to its output: its
 * JSON built once, when an output asks for it; a stream's usage chunk written straight as SSE
 * bytes and a whole answer straight as JSON bytes, the same bytes as its JSON (ClientChunksTest).
 */
final class CompletionEnd implements AnswerEnd {
  private static final byte[] CHOICE = bytes("{\"index\":");
  private static final byte[] USAGE = bytes("],\"usage\":");
  private static final byte[] PROMPT_TOKENS = bytes("{\"prompt_tokens\":");
  private static final byte[] COMPLETION_TOKENS = bytes(",\"completion_tokens\":");
  private static final byte[] TOTAL_TOKENS = bytes(",\"total_tokens\":");
  private static final byte[] EXTRA = bytes(",\"extra\":{");
  private static final byte[] ROUTING_KEY = bytes(",\"routing\":");
  private static final byte[] USAGE_END = bytes("}" + SseWriter.EVENT_END);
  private static final byte[] ANSWER_END = bytes("}");
  private static final byte[] COMMA = {','};
  private static final byte[] COLON = {':'};
  private static final byte[] END_OBJECT = {'}'};
  private static final int DATA_LENGTH = bytes(SseWriter.DATA).length;
  /** The builtin engine's per-choice token ids in its usage record: the router's bookkeeping. */
  private static final String OUTPUT_TOKEN_IDS = "output_token_ids";
  private static final String ROUTING = "routing";

  private final ClientChunks owner;
  private final ChoiceLedger ledger;
  private final int promptTokens;
  private final int completionTokens;
  private final UsageExtra engineExtra;
  private final Routing routing;
  private JsonObject usage;
  private JsonObject json;

  CompletionEnd(ClientChunks owner, ChoiceLedger ledger, int promptTokens, int completionTokens,
      UsageExtra engineExtra, Routing routing) {
    this.owner = owner;
    this.ledger = ledger;
    this.promptTokens = promptTokens;
    this.completionTokens = completionTokens;
    this.engineExtra = engineExtra;
    this.routing = routing;
  }

  @Override
  public int completionTokens() {
    return completionTokens;
  }

  @Override
  public int totalTokens() {
    return promptTokens + completionTokens;
  }

  @Override
  public JsonObject usage() {
    if (usage == null) {
      usage = ClientChunks.usage(promptTokens, completionTokens);
      JsonObject extra = extra(engineExtra, routing);
      if (extra != null) {
        usage.put("extra", extra);
      }
    }
    return usage;
  }

  @Override
  public JsonObject toJson() {
    if (json == null) {
      json = owner.job().stream() ? owner.usageChunk(usage()) : owner.response(ledger, usage());
    }
    return json;
  }

  @Override
  public Buffer toSse() {
    return ClientChunk.rendered(this);
  }

  @Override
  public void appendSse(JsonBytes w) {
    int mark = w.length();
    if (owner.job().stream()) {
      byte[] prefix = owner.ssePrefix(); // up to "choices":[ and the delta's {"index":
      w.raw(prefix, 0, prefix.length - CHOICE_START);
      if (writeUsage(w.raw(USAGE))) {
        w.raw(USAGE_END);
        return;
      }
    }
    w.truncate(mark);
    w.raw(SseWriter.frame(toJson())); // a value only the general encoder writes
  }

  /**
   * A whole answer ({@link ClientChunks#response}) written straight as bytes: the envelope of
   * the stream's chunks, each choice's text, logprobs and finish reason, the usage; the same
   * keys in the same order as its JSON (ClientChunksTest).
   */
  @Override
  public Buffer toJsonBuffer() {
    if (!owner.job().stream()) {
      JsonBytes w = JsonBytes.threadWriter();
      byte[] prefix = owner.ssePrefix(); // data: and the envelope, up to the choice's {"index":
      w.raw(prefix, DATA_LENGTH, prefix.length - CHOICE_START - DATA_LENGTH);
      if (writeChoices(w) && writeUsage(w.raw(USAGE))) {
        return w.raw(ANSWER_END).toBuffer();
      }
    }
    return FastJson.toBuffer(toJson()); // a value only the general encoder writes
  }

  /** The ledger's choices, as {@link ClientChunks#response} makes them; false as above. */
  private boolean writeChoices(JsonBytes w) {
    for (int i = 0; i < ledger.size(); i++) {
      ChoiceLedger.Choice c = ledger.get(i);
      if (i > 0) {
        w.raw(COMMA);
      }
      w.raw(CHOICE).number(owner.job().answerIndex(i)).raw(TEXT);
      if (!w.value(owner.wholeText(c))) {
        return false;
      }
      w.raw(LOGPROBS);
      if (!w.value(owner.wholeLogprobs(c))) {
        return false;
      }
      w.raw(FINISH);
      if (!w.value(c.finishReason)) {
        return false;
      }
      w.raw(END_OBJECT);
    }
    return true;
  }

  /**
   * The usage as bytes, the engine's record spliced as it came (so a number is spelled as the
   * engine spelled it); false as above.
   */
  @Override
  public boolean writeUsage(JsonBytes w) {
    w.raw(PROMPT_TOKENS).number(promptTokens).raw(COMPLETION_TOKENS).number(completionTokens)
        .raw(TOTAL_TOKENS).number(totalTokens());
    if (!writeExtra(w)) {
      return false;
    }
    w.raw(END_OBJECT);
    return true;
  }

  /** The ledger's choices, as {@link #toJson()} has them: no JSON built. */
  @Override
  public List<WholeChoice> wholeChoices() {
    if (owner.job().stream()) {
      return List.of();
    }
    List<WholeChoice> choices = new ArrayList<>(ledger.size());
    for (int i = 0; i < ledger.size(); i++) {
      ChoiceLedger.Choice c = ledger.get(i);
      choices.add(new WholeChoice(owner.job().answerIndex(i), owner.wholeText(c), c.finishReason,
          owner.wholeLogprobs(c)));
    }
    return choices;
  }

  /** {@link #extra}'s members as bytes, in its order; false where the general encoder must. */
  private boolean writeExtra(JsonBytes w) {
    if (engineExtra == null) {
      return true;
    }
    byte[] record = engineExtra.bytes();
    if (record != null) { // the engine's members as they came, the routing after them
      if (record.length == 2) {
        return true; // {}: nothing to say
      }
      w.raw(EXTRA).raw(record, 1, record.length - 2);
      if (routing != null) {
        w.raw(ROUTING_KEY);
        if (!routing.write(w)) {
          return false;
        }
      }
      w.raw(END_OBJECT);
      return true;
    }
    boolean any = false;
    boolean routingWritten = routing == null;
    for (Map.Entry<String, Object> e : engineExtra.json().getMap().entrySet()) {
      String key = e.getKey();
      if (OUTPUT_TOKEN_IDS.equals(key)) {
        continue;
      }
      w.raw(any ? COMMA : EXTRA);
      any = true;
      if (!w.value(key)) {
        return false;
      }
      w.raw(COLON);
      if (ROUTING.equals(key) && routing != null) {
        routingWritten = true; // the router's record takes the engine's key's place
        if (!routing.write(w)) {
          return false;
        }
      } else if (!w.value(e.getValue())) {
        return false;
      }
    }
    if (!any) {
      return true;
    }
    if (!routingWritten) {
      w.raw(ROUTING_KEY);
      if (!routing.write(w)) {
        return false;
      }
    }
    w.raw(END_OBJECT);
    return true;
  }

  /**
   * {@code usage.extra}, as {@link ClientChunks#end} describes it; null when it has nothing to
   * say.
   */
  static JsonObject extra(UsageExtra engineExtra, Routing routing) {
    if (engineExtra == null) {
      return null;
    }
    JsonObject extra = engineExtra.json().copy();
    extra.remove(OUTPUT_TOKEN_IDS);
    if (extra.isEmpty()) {
      return null;
    }
    if (routing != null) {
      extra.put(ROUTING, routing.toJson()); // beside the engine's debug record: why these engines
    }
    return extra;
  }
}
