package dev.tandem.chat;

import dev.tandem.api.FastJson;
import dev.tandem.api.JsonBytes;
import dev.tandem.api.SseWriter;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A streamed chat answer as {@code chat.completion.chunk} objects, from the completion's stream:
 * text deltas with their token logprobs, then a finish reason, per choice; the role in each
 * choice's first delta, {@code finish_reason} on its last chunk, and a last chunk with
 * {@code choices: []} and the usage when {@code stream_options.include_usage} asked for it.
 * With tool parsing on, {@code <tool_call>} blocks become {@code delta.tool_calls} (a chunk with
 * index, id, type and name, then one with the arguments) and "stop" becomes "tool_calls".
 * One per request, used from one thread (the request's context).
 */
public final class ChatChunks {
  private final String id;
  private final long created;
  private final String model;
  private static final byte[] CONTENT =
      ",\"delta\":{\"content\":".getBytes(StandardCharsets.UTF_8);
  private static final byte[] CONTENT_END = ("},\"logprobs\":null,\"finish_reason\":null}]}"
      + SseWriter.EVENT_END).getBytes(StandardCharsets.UTF_8);

  private final boolean[] started;
  private final HermesToolParser[] parsers;
  /** {@code data: {"id":...,"choices":[{"index":}, built on first use. */
  private byte[] ssePrefix;

  /**
   * @param n the request's number of choices
   * @param parseToolCalls tools offered and the hermes parser on
   */
  public ChatChunks(String id, long created, String model, int n, boolean parseToolCalls,
      Supplier<String> callIds) {
    this.id = id;
    this.created = created;
    this.model = model;
    this.started = new boolean[n];
    this.parsers = new HermesToolParser[n];
    if (parseToolCalls) {
      for (int i = 0; i < n; i++) {
        parsers[i] = new HermesToolParser(callIds);
      }
    }
  }

  /**
   * Chunks for a text delta of choice {@code index}, with its tokens' logprobs (null when not
   * asked). Text the tool parser holds back comes in a later chunk; then a chunk may carry only
   * logprobs.
   */
  public List<JsonObject> text(int index, String text, List<TokenLogprob> logprobs) {
    List<JsonObject> chunks = new ArrayList<>();
    if (parsers[index] == null) {
      chunks.add(chunk(choice(index, content(index, text), logprobs, null)));
      return chunks;
    }
    List<HermesToolParser.Event> events = parsers[index].push(text);
    emit(index, events, logprobs, chunks);
    return chunks;
  }

  /** The last chunks of choice {@code index}: what the parser held back, then the finish reason. */
  public List<JsonObject> finish(int index, String engineFinishReason) {
    List<JsonObject> chunks = new ArrayList<>();
    boolean calledTools = false;
    if (parsers[index] != null) {
      emit(index, parsers[index].finish(), null, chunks);
      calledTools = parsers[index].calls() > 0;
    }
    JsonObject delta = started[index] ? new JsonObject() : firstDelta(index);
    chunks.add(chunk(choice(index, delta, null,
        ChatResponses.finishReason(engineFinishReason, calledTools))));
    return chunks;
  }

  /**
   * Whether a text delta of choice {@code index} without logprobs is one plain content chunk
   * ({@code {"content": text}}): the choice's first chunk (with the role) went out and no tool
   * parser holds text back. Then {@link #appendContentSse} writes it.
   */
  public boolean plainContent(int index) {
    return started[index] && parsers[index] == null;
  }

  /**
   * Appends the SSE event of a plain content chunk ({@link #plainContent}) to {@code out}, byte for
   * byte what framing {@link #text}'s chunk gives: the envelope up to the choice's index encoded
   * once per answer, then the index and the escaped text. False (nothing appended) when the text
   * holds a lone surrogate, which only the general path writes as it always did.
   */
  public boolean appendContentSse(int index, String text, JsonBytes out) {
    if (ssePrefix == null) {
      String head = FastJson.encode(envelope(new JsonArray()));
      // {"id":..,"model":..,"choices":[]} -> data: {"id":..,"model":..,"choices":[{"index":
      ssePrefix = (SseWriter.DATA + head.substring(0, head.length() - "[]}".length())
          + "[{\"index\":").getBytes(StandardCharsets.UTF_8);
    }
    int mark = out.length();
    out.raw(ssePrefix).number(index).raw(CONTENT);
    if (!out.value(text)) {
      out.truncate(mark);
      return false; // a lone surrogate
    }
    out.raw(CONTENT_END);
    return true;
  }

  /** The usage chunk ({@code choices: []}), sent last when {@code include_usage} is on. */
  public JsonObject usage(JsonObject usage) {
    return envelope(new JsonArray()).put("usage", usage);
  }

  private void emit(int index, List<HermesToolParser.Event> events, List<TokenLogprob> logprobs,
      List<JsonObject> chunks) {
    List<TokenLogprob> pendingLogprobs = logprobs;
    for (HermesToolParser.Event e : events) {
      if (e instanceof HermesToolParser.Text t) {
        chunks.add(chunk(choice(index, content(index, t.text()), pendingLogprobs, null)));
        pendingLogprobs = null;
      } else if (e instanceof HermesToolParser.Call c) {
        JsonObject head = new JsonObject().put("index", c.index()).put("id", c.call().id())
            .put("type", "function").put("function", new JsonObject().put("name", c.call().name())
                .put("arguments", ""));
        JsonObject delta = started[index] ? new JsonObject() : firstDelta(index);
        chunks.add(chunk(choice(index, delta.put("tool_calls", new JsonArray().add(head)), pendingLogprobs, null)));
        pendingLogprobs = null;
        JsonObject args = new JsonObject().put("index", c.index())
            .put("function", new JsonObject().put("arguments", c.call().arguments()));
        chunks.add(chunk(choice(index, new JsonObject().put("tool_calls", new JsonArray().add(args)), null, null)));
      }
    }
    if (pendingLogprobs != null && !pendingLogprobs.isEmpty()) {
      chunks.add(chunk(choice(index, content(index, ""), pendingLogprobs, null)));
    }
  }

  /** {@code {content}}, with the role when it is the choice's first delta. */
  private JsonObject content(int index, String text) {
    JsonObject delta = started[index] ? new JsonObject() : firstDelta(index);
    return delta.put("content", text);
  }

  private JsonObject firstDelta(int index) {
    started[index] = true;
    return new JsonObject().put("role", "assistant");
  }

  private static JsonObject choice(int index, JsonObject delta, List<TokenLogprob> logprobs,
      String finishReason) {
    return new JsonObject().put("index", index).put("delta", delta)
        .put("logprobs", logprobs == null ? null : TokenLogprob.chatLogprobs(logprobs))
        .put("finish_reason", finishReason);
  }

  private JsonObject chunk(JsonObject choice) {
    return envelope(new JsonArray().add(choice));
  }

  private JsonObject envelope(JsonArray choices) {
    return new JsonObject().put("id", id).put("object", "chat.completion.chunk").put("created", created)
        .put("model", model).put("choices", choices);
  }
}
