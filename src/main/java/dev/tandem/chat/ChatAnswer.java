package dev.tandem.chat;

import dev.tandem.api.JsonBytes;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One chat answer, written from the completion that generates it: each streamed completion chunk
 * ({@code text_completion}: choices with index, text, logprobs, finish_reason; or the usage-only
 * last chunk) becomes {@code chat.completion.chunk} objects, and a whole completion response
 * becomes the {@code chat.completion}. Router and builtin engine both run a chat as a completion
 * of its rendered prompt and write the client's answer through this class, so the two speak
 * chat alike. One per request, used from one thread (the request's context).
 */
public final class ChatAnswer {
  private final String id;
  private final long created;
  private final String model;
  private final boolean parseToolCalls;
  private final Supplier<String> callIds;
  private final ChatChunks chunks;

  /**
   * @param id the {@code chatcmpl-...} id clients see
   * @param n the request's number of choices
   * @param parseToolCalls tools offered and the hermes parser on
   */
  public ChatAnswer(String id, long created, String model, int n, boolean parseToolCalls,
      Supplier<String> callIds) {
    this.id = id;
    this.created = created;
    this.model = model;
    this.parseToolCalls = parseToolCalls;
    this.callIds = callIds;
    this.chunks = new ChatChunks(id, created, model, n, parseToolCalls, callIds);
  }

  public ChatAnswer(String id, long created, String model, int n, boolean parseToolCalls) {
    this(id, created, model, n, parseToolCalls, HermesToolParser::newCallId);
  }

  public String id() {
    return id;
  }

  /**
   * The chat chunks for one streamed completion chunk, in order: per choice its text (with its
   * tokens' logprobs), then its finish reason; a chunk without choices but with a usage record
   * becomes the chat usage chunk. An empty delta (no text, no logprobs, no finish) yields nothing.
   */
  public List<JsonObject> chunks(JsonObject completionChunk) {
    List<JsonObject> out = new ArrayList<>();
    JsonArray choices = completionChunk.getJsonArray("choices", new JsonArray());
    if (choices.isEmpty() && completionChunk.getJsonObject("usage") != null) {
      out.add(usageChunk(completionChunk.getJsonObject("usage")));
      return out;
    }
    for (Object o : choices) {
      JsonObject c = (JsonObject) o;
      choiceChunks(c.getInteger("index", 0), c.getString("text", ""), c.getJsonObject("logprobs"),
          c.getString("finish_reason"), out);
    }
    return out;
  }

  /**
   * The chat chunks for one choice's completion delta (its fields, as {@link #chunks} reads them
   * from the completion chunk), in order: its text, then its finish reason.
   *
   * @param logprobs the completion's logprobs of the delta, or null
   * @param finishReason null until the choice ends
   */
  public List<JsonObject> chunks(int index, String text, JsonObject logprobs, String finishReason) {
    List<JsonObject> out = new ArrayList<>();
    choiceChunks(index, text, logprobs, finishReason, out);
    return out;
  }

  private void choiceChunks(int index, String text, JsonObject logprobs, String finishReason,
      List<JsonObject> out) {
    if (!text.isEmpty() || logprobs != null) {
      out.addAll(chunks.text(index, text,
          logprobs == null ? null : TokenLogprob.fromCompletion(logprobs)));
    }
    if (finishReason != null) {
      out.addAll(chunks.finish(index, finishReason));
    }
  }

  /**
   * Whether a text delta (no logprobs, no finish reason) of choice {@code index} is one plain
   * content chunk, which {@link #contentChunk} and {@link #appendContentSse} write without the
   * completion chunk's JSON (the router's per-token path).
   */
  public boolean plainContent(int index) {
    return chunks.plainContent(index);
  }

  /** The chat chunk of a plain content delta ({@link #plainContent}). */
  public JsonObject contentChunk(int index, String text) {
    return chunks.text(index, text, null).get(0);
  }

  /** Its SSE event, appended to {@code out}; false (nothing appended) for a lone surrogate. */
  public boolean appendContentSse(int index, String text, JsonBytes out) {
    return chunks.appendContentSse(index, text, out);
  }

  /** The last chunk of a stream that asked for usage: {@code choices: []} and the usage. */
  public JsonObject usageChunk(JsonObject usage) {
    return chunks.usage(usage);
  }

  /**
   * The {@code chat.completion} for a whole completion response: each choice's text (tool calls
   * parsed out when on), finish reason and logprobs (chat shape, when the completion has them),
   * and the completion's usage as it is.
   */
  public JsonObject whole(JsonObject completion) {
    List<ChatResponses.Choice> choices = new ArrayList<>();
    JsonArray array = completion.getJsonArray("choices", new JsonArray());
    for (int i = 0; i < array.size(); i++) {
      JsonObject c = array.getJsonObject(i);
      choices.add(choice(c.getInteger("index", i), c.getString("text", ""),
          c.getString("finish_reason"), c.getJsonObject("logprobs")));
    }
    return whole(choices, completion.getJsonObject("usage"));
  }

  /**
   * A finished choice of the answer from its completion choice's fields: tool calls parsed out
   * when on, the logprobs (the completion's, or null) in chat shape.
   */
  public ChatResponses.Choice choice(int index, String text, String finishReason,
      JsonObject logprobs) {
    return ChatResponses.choice(index, text, finishReason,
        logprobs == null ? null : TokenLogprob.fromCompletion(logprobs), parseToolCalls, callIds);
  }

  /** The {@code chat.completion} of these choices and the completion's usage. */
  public JsonObject whole(List<ChatResponses.Choice> choices, JsonObject usage) {
    return ChatResponses.completion(id, created, model, choices, usage);
  }

  /**
   * {@link #whole(List, JsonObject)}'s JSON written straight as bytes, the usage by
   * {@code usage}; false where only the general encoder can ({@link ChatResponses#write}).
   */
  public boolean writeWhole(JsonBytes w, List<ChatResponses.Choice> choices,
      Predicate<JsonBytes> usage) {
    return ChatResponses.write(w, id, created, model, choices, usage);
  }
}
