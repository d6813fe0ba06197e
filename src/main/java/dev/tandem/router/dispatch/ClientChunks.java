package dev.tandem.router.dispatch;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.tandem.api.FastJson;
import dev.tandem.api.JsonBytes;
import dev.tandem.api.SseWriter;
import dev.tandem.router.upstream.UsageExtra;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;

/**
 * The JSON shapes clients receive (reference §3.3, §3.4), built in one place so streamed chunks
 * and whole answers agree: same id, created, model and object type. A streamed delta is the
 * router's most frequent output, so its SSE bytes are written directly: the envelope up to the
 * choice's index is encoded once per request, then index, escaped text, logprobs and finish
 * reason are appended (same keys, same order as {@link #envelope}), framed as {@link SseWriter}
 * frames every event.
 */
final class ClientChunks {

  static final byte[] TEXT = bytes(",\"text\":");
  static final byte[] LOGPROBS = bytes(",\"logprobs\":");
  static final byte[] FINISH = bytes(",\"finish_reason\":");
  private static final byte[] NULL = bytes("null");
  private static final byte[] END = bytes("}],\"usage\":null}" + SseWriter.EVENT_END);
  private static final byte[] DATA_ID = bytes(SseWriter.DATA + "{\"id\":");
  private static final byte[] QUOTE = {'"'};
  private static final byte[] OBJECT_CREATED = bytes(",\"object\":\"text_completion\",\"created\":");
  private static final byte[] MODEL = bytes(",\"model\":");
  private static final byte[] CHOICES = bytes(",\"choices\":[{\"index\":");
  /** What ends the prefix after {@code "choices":[}: the delta's choice starts there. */
  static final int CHOICE_START = "{\"index\":".length();

  /** The last model named and its quoted bytes (shared by every request; never written to). */
  private static volatile Quoted lastModel;

  private final CompletionJob job;
  /** {@code data: {"id":...,"choices":[{"index":}, built on first use. */
  private byte[] ssePrefix;

  ClientChunks(CompletionJob job) {
    this.job = job;
  }

  CompletionJob job() {
    return job;
  }

  ClientChunk delta(int index, String text, JsonObject logprobs, String finishReason) {
    return new Delta(this, job.answerIndex(index), text, logprobs, finishReason);
  }

  JsonObject response(ChoiceLedger ledger, JsonObject usage) {
    JsonArray choices = new JsonArray();
    for (int i = 0; i < ledger.size(); i++) {
      ChoiceLedger.Choice c = ledger.get(i);
      choices.add(new AnswerEnd.WholeChoice(job.answerIndex(i), wholeText(c), c.finishReason,
          wholeLogprobs(c)).toJson());
    }
    return envelope(choices, usage);
  }

  /** A whole answer's text of one choice: the echoed prompt, what was delivered, the suffix. */
  String wholeText(ChoiceLedger.Choice c) {
    return (job.echoText() == null ? "" : job.echoText()) + c.text
        + (job.suffix() == null ? "" : job.suffix());
  }

  /** Its logprobs, when the request asked for them (null otherwise). */
  JsonObject wholeLogprobs(ChoiceLedger.Choice c) {
    return job.logprobs() == null ? null : c.logprobs;
  }

  /** A stream's last chunk: the envelope with no choices and the request's usage. */
  JsonObject usageChunk(JsonObject usage) {
    return envelope(new JsonArray(), usage);
  }

  static JsonObject usage(int promptTokens, int completionTokens) {
    return new JsonObject().put("prompt_tokens", promptTokens)
        .put("completion_tokens", completionTokens)
        .put("total_tokens", promptTokens + completionTokens);
  }

  /**
   * The end of this request's answer ({@link AnswerEnd}).
   *
   * @param ledger the choices, for a whole answer
   * @param engineExtra the usage record ({@code usage.extra}: timings, cache hits) of the one
   *     engine that produced the whole answer, passed on as MLC's router passes it, without the
   *     per-choice token ids (the router's bookkeeping) and with the attempt's {@code routing}
   *     beside it; null after retries or resumes, when no single engine's record is whole. A
   *     stream's usage chunk and a whole answer's bytes splice a record kept as bytes ({@link
   *     UsageExtra#bytes}), so its numbers are spelled there as the engine spelled them (and in
   *     {@link AnswerEnd#toJson} as Jackson writes them)
   */
  AnswerEnd end(ChoiceLedger ledger, int promptTokens, int completionTokens,
      UsageExtra engineExtra, Routing routing) {
    return new CompletionEnd(this, ledger, promptTokens, completionTokens, engineExtra, routing);
  }

  private JsonObject envelope(JsonArray choices, JsonObject usage) {
    return new JsonObject().put("id", job.requestId()).put("object", "text_completion")
        .put("created", job.created()).put("model", job.responseModel()).put("choices", choices)
        .put("usage", usage);
  }

  /**
   * {@code data: {"id":..,"object":..,"created":..,"model":..,"choices":[{"index":}: the
   * {@link #envelope}'s keys in its order, written straight as bytes (once per request, but
   * every request: into one array, the model's quoted bytes kept from the last request); through
   * the envelope's JSON where a string holds a lone surrogate.
   */
  byte[] ssePrefix() {
    if (ssePrefix == null) {
      try {
        ssePrefix = concat(DATA_ID, quoted(job.requestId()), OBJECT_CREATED,
            Long.toString(job.created()).getBytes(StandardCharsets.US_ASCII), MODEL,
            quotedModel(job.responseModel()), CHOICES);
      } catch (IllegalArgumentException loneSurrogate) {
        String head = FastJson.encode(envelope(new JsonArray(), null));
        // {"id":..,"model":..,"choices":[],"usage":null} -> data: {"id":..,"choices":[{"index":
        ssePrefix = bytes(SseWriter.DATA + head.substring(0, head.lastIndexOf("[],\"usage\":null}"))
            + "[{\"index\":");
      }
    }
    return ssePrefix;
  }

  /** The model's quoted bytes: every request of a router names the same model or a few. */
  private static byte[] quotedModel(String model) {
    Quoted last = lastModel;
    if (last != null && last.text.equals(model)) {
      return last.bytes;
    }
    byte[] bytes = quoted(model);
    if (model != null) {
      lastModel = new Quoted(model, bytes);
    }
    return bytes;
  }

  /** {@code s} as a JSON string (null as null), Jackson's escapes; plain ASCII copied as is. */
  private static byte[] quoted(String s) {
    if (s == null) {
      return NULL;
    }
    int n = s.length();
    byte[] out = new byte[n + 2];
    out[0] = '"';
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
        byte[] escaped = JsonStringEncoder.getInstance().quoteAsUTF8(s);
        return concat(QUOTE, escaped, QUOTE);
      }
      out[i + 1] = (byte) c;
    }
    out[n + 1] = '"';
    return out;
  }

  private static byte[] concat(byte[]... parts) {
    int length = 0;
    for (byte[] p : parts) {
      length += p.length;
    }
    byte[] out = new byte[length];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private record Quoted(String text, byte[] bytes) {}

  /** One choice's delta: {@code {..., "choices": [{index, text, logprobs, finish_reason}], "usage": null}}. */
  private record Delta(ClientChunks owner, int index, String text, JsonObject logprobs,
      String finishReason) implements ClientChunk {

    @Override
    public JsonObject toJson() {
      JsonObject choice = new JsonObject().put("index", index).put("text", text)
          .put("logprobs", logprobs).put("finish_reason", finishReason);
      return owner.envelope(new JsonArray().add(choice), null);
    }

    @Override
    public ClientChunk.OfChoice ofChoice() {
      return new ClientChunk.OfChoice(index, text, logprobs, finishReason);
    }

    @Override
    public Buffer toSse() {
      return ClientChunk.rendered(this);
    }

    @Override
    public void appendSse(JsonBytes w) {
      int mark = w.length();
      w.raw(owner.ssePrefix()).number(index).raw(TEXT);
      if (!w.value(text)) {
        // A lone UTF-16 surrogate (an engine escaped half a pair): the general encoder writes
        // it as the UTF-8 conversion of the whole line does, '?'.
        w.truncate(mark);
        w.raw(SseWriter.frame(toJson().encode()));
        return;
      }
      w.raw(LOGPROBS);
      if (!w.value(logprobs)) {
        w.raw(bytes(logprobs.encode())); // a value only Jackson's databind writes
      }
      w.raw(FINISH);
      if (!w.value(finishReason)) {
        w.truncate(mark);
        w.raw(SseWriter.frame(toJson().encode())); // a lone surrogate, as above
        return;
      }
      w.raw(END);
    }
  }
}
