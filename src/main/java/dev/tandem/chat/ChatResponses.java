package dev.tandem.chat;

import dev.tandem.api.JsonBytes;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The {@code chat.completion} object built from completion-level pieces (each choice's text,
 * finish reason and token logprobs, the usage), so that router and engine can wrap the completion
 * machinery they have. Pure functions.
 */
public final class ChatResponses {
  private static final byte[] ID = bytes("{\"id\":");
  private static final byte[] OBJECT_CREATED =
      bytes(",\"object\":\"chat.completion\",\"created\":");
  private static final byte[] MODEL = bytes(",\"model\":");
  private static final byte[] CHOICES = bytes(",\"choices\":[");
  private static final byte[] INDEX = bytes("{\"index\":");
  private static final byte[] CONTENT = bytes(",\"message\":{\"role\":\"assistant\",\"content\":");
  private static final byte[] REFUSAL = bytes(",\"refusal\":null");
  private static final byte[] TOOL_CALLS = bytes(",\"tool_calls\":");
  private static final byte[] LOGPROBS = bytes("},\"logprobs\":");
  private static final byte[] FINISH = bytes(",\"finish_reason\":");
  private static final byte[] USAGE = bytes("],\"usage\":");
  private static final byte[] COMMA = {','};
  private static final byte[] END_OBJECT = {'}'};

  private ChatResponses() {}

  /**
   * One finished choice.
   *
   * @param content the answer's text, null when it is only tool calls
   * @param logprobs the tokens' logprobs, or null when the request did not ask for them
   */
  public record Choice(int index, String content, List<ChatMessage.ToolCall> toolCalls,
      String finishReason, List<TokenLogprob> logprobs) {
    public Choice {
      toolCalls = List.copyOf(toolCalls);
    }
  }

  /**
   * A choice from its completion: with {@code parseToolCalls} (tools offered, hermes parser on),
   * {@code <tool_call>} blocks become tool calls and a "stop" becomes "tool_calls".
   */
  public static Choice choice(int index, String text, String finishReason, List<TokenLogprob> logprobs,
      boolean parseToolCalls, Supplier<String> callIds) {
    if (!parseToolCalls) {
      return new Choice(index, text, List.of(), finishReason, logprobs);
    }
    HermesToolParser.ParsedAnswer parsed = HermesToolParser.parse(text, callIds);
    return new Choice(index, parsed.content(), parsed.toolCalls(),
        finishReason(finishReason, !parsed.toolCalls().isEmpty()), logprobs);
  }

  /** "tool_calls" when the answer stopped by itself after calling tools; the engine's reason otherwise. */
  public static String finishReason(String engineReason, boolean calledTools) {
    return calledTools && "stop".equals(engineReason) ? "tool_calls" : engineReason;
  }

  /**
   * {@code {id, object: "chat.completion", created, model, choices, usage}}.
   *
   * @param usage the completion's usage object ({@code prompt_tokens}, {@code completion_tokens},
   *     {@code total_tokens}, ...), passed through
   */
  public static JsonObject completion(String id, long created, String model, List<Choice> choices,
      JsonObject usage) {
    JsonArray array = new JsonArray();
    for (Choice c : choices) {
      array.add(new JsonObject().put("index", c.index()).put("message", message(c))
          .put("logprobs", c.logprobs() == null ? null : TokenLogprob.chatLogprobs(c.logprobs()))
          .put("finish_reason", c.finishReason()));
    }
    return new JsonObject().put("id", id).put("object", "chat.completion").put("created", created)
        .put("model", model).put("choices", array).put("usage", usage);
  }

  /**
   * {@link #completion}'s JSON written straight as bytes, the usage by {@code usage}: the same
   * keys in the same order (ChatResponsesTest). False where a value needs the general encoder (a
   * lone surrogate, NaN); {@code w} then holds part of it.
   */
  public static boolean write(JsonBytes w, String id, long created, String model,
      List<Choice> choices, Predicate<JsonBytes> usage) {
    if (!w.raw(ID).value(id)) {
      return false;
    }
    if (!w.raw(OBJECT_CREATED).number(created).raw(MODEL).value(model)) {
      return false;
    }
    w.raw(CHOICES);
    for (int i = 0; i < choices.size(); i++) {
      Choice c = choices.get(i);
      if (i > 0) {
        w.raw(COMMA);
      }
      if (!w.raw(INDEX).number(c.index()).raw(CONTENT).value(c.content())) {
        return false;
      }
      w.raw(REFUSAL);
      if (!c.toolCalls().isEmpty() && !w.raw(TOOL_CALLS).value(toolCalls(c))) {
        return false;
      }
      if (!w.raw(LOGPROBS).value(c.logprobs() == null ? null
          : TokenLogprob.chatLogprobs(c.logprobs()))) {
        return false;
      }
      if (!w.raw(FINISH).value(c.finishReason())) {
        return false;
      }
      w.raw(END_OBJECT);
    }
    if (!usage.test(w.raw(USAGE))) {
      return false;
    }
    w.raw(END_OBJECT);
    return true;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** {@code {role: "assistant", content, refusal: null, tool_calls?}}. */
  static JsonObject message(Choice c) {
    JsonObject m = new JsonObject().put("role", "assistant").put("content", c.content()).putNull("refusal");
    if (!c.toolCalls().isEmpty()) {
      m.put("tool_calls", toolCalls(c));
    }
    return m;
  }

  private static JsonArray toolCalls(Choice c) {
    JsonArray calls = new JsonArray();
    c.toolCalls().forEach(t -> calls.add(toolCall(t)));
    return calls;
  }

  /** {@code {id, type: "function", function: {name, arguments}}}. */
  static JsonObject toolCall(ChatMessage.ToolCall t) {
    return new JsonObject().put("id", t.id()).put("type", "function")
        .put("function", new JsonObject().put("name", t.name()).put("arguments", t.arguments()));
  }

  /** The usage object from token counts. */
  public static JsonObject usage(int promptTokens, int completionTokens) {
    return new JsonObject().put("prompt_tokens", promptTokens).put("completion_tokens", completionTokens)
        .put("total_tokens", promptTokens + completionTokens);
  }
}
