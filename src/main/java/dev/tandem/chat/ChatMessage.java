package dev.tandem.chat;

import dev.tandem.api.ApiError;
import dev.tandem.api.JsonFields;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One message of a chat request, checked: a known role, content of the right shape for it
 * (text, a list of text parts, or null for an assistant turn that calls tools), tool calls only on
 * assistant turns, a tool call id on tool results.
 *
 * @param content the text (text parts joined with a newline, as vLLM does); null only for an
 *     assistant message with tool calls
 * @param toolCalls the assistant's tool calls as sent (OpenAI shape), empty if none
 * @param toolCallId a tool result's {@code tool_call_id}, else null
 * @param reasoningContent an assistant's {@code reasoning_content} (DeepSeek/Qwen3 convention), or null
 */
public record ChatMessage(String role, String content, String name, List<ToolCall> toolCalls,
    String toolCallId, String reasoningContent) {

  public static final Set<String> ROLES = Set.of("system", "developer", "user", "assistant", "tool");

  /** A tool call in a message: {@code {id, type: "function", function: {name, arguments}}}. */
  public record ToolCall(String id, String name, String arguments) {}

  public ChatMessage {
    toolCalls = List.copyOf(toolCalls);
  }

  /** A plain text message. */
  public static ChatMessage of(String role, String content) {
    return new ChatMessage(role, content, null, List.of(), null, null);
  }

  static ChatMessage parse(Object value, int index) {
    String where = "messages[" + index + "]";
    if (!(value instanceof JsonObject m)) {
      throw JsonFields.typeError(where, "an object with \"role\" and \"content\"", value);
    }
    Object roleValue = m.getValue("role");
    if (roleValue == null) {
      throw ApiError.invalid(where + ".role", "\"" + where + ".role\" is required");
    }
    if (!(roleValue instanceof String role) || !ROLES.contains(role)) {
      throw ApiError.invalid(where + ".role", "invalid_role", "\"" + where + ".role\" must be one of"
          + " system, developer, user, assistant, tool; got " + JsonFields.describe(roleValue));
    }
    List<ToolCall> toolCalls = role.equals("assistant") ? toolCalls(m, where) : List.of();
    if (!role.equals("assistant") && m.getValue("tool_calls") != null) {
      throw ApiError.invalid(where + ".tool_calls", "only assistant messages may have \"tool_calls\"");
    }
    String content = content(m.getValue("content"), where, role, !toolCalls.isEmpty());
    String toolCallId = null;
    if (role.equals("tool")) {
      toolCallId = text(m, "tool_call_id", where);
      if (toolCallId == null) {
        throw ApiError.invalid(where + ".tool_call_id",
            "\"" + where + ".tool_call_id\" is required in a tool message");
      }
    }
    return new ChatMessage(role, content, text(m, "name", where), toolCalls, toolCallId,
        role.equals("assistant") ? text(m, "reasoning_content", where) : null);
  }

  private static String text(JsonObject m, String field, String where) {
    Object v = m.getValue(field);
    if (v != null && !(v instanceof String)) {
      throw JsonFields.typeError(where + "." + field, "a string", v);
    }
    return (String) v;
  }

  /** A string, a list of text parts (joined with "\n"), or null for an assistant that calls tools. */
  private static String content(Object value, String where, String role, boolean hasToolCalls) {
    String field = where + ".content";
    if (value == null) {
      if (role.equals("assistant") && hasToolCalls) {
        return null;
      }
      throw ApiError.invalid(field, "\"" + field + "\" is required"
          + (role.equals("assistant") ? " unless the message has \"tool_calls\"" : ""));
    }
    if (value instanceof String s) {
      return s;
    }
    if (!(value instanceof JsonArray parts)) {
      throw JsonFields.typeError(field, "a string or an array of content parts", value);
    }
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      String part = field + "[" + i + "]";
      if (!(parts.getValue(i) instanceof JsonObject p)) {
        throw JsonFields.typeError(part, "a content part object {\"type\": \"text\", \"text\": ...}",
            parts.getValue(i));
      }
      Object type = p.getValue("type");
      if ("text".equals(type) || (role.equals("assistant") && "refusal".equals(type))) {
        Object text = p.getValue(type.equals("text") ? "text" : "refusal");
        if (!(text instanceof String s)) {
          throw JsonFields.typeError(part + "." + type, "a string", text);
        }
        texts.add(s);
      } else if ("image_url".equals(type) || "input_audio".equals(type) || "file".equals(type)
          || "input_image".equals(type) || "image".equals(type)) {
        throw ApiError.invalid(part + ".type", "unsupported_content", "\"" + type + "\" content is"
            + " not supported: this server serves text-only models; send text parts only");
      } else {
        throw ApiError.invalid(part + ".type", "\"" + part + ".type\" must be \"text\", got "
            + JsonFields.describe(type));
      }
    }
    if (texts.isEmpty()) {
      throw ApiError.invalid(field, "\"" + field + "\" has no text parts");
    }
    return String.join("\n", texts);
  }

  private static List<ToolCall> toolCalls(JsonObject m, String where) {
    Object value = m.getValue("tool_calls");
    if (value == null) {
      return List.of();
    }
    if (!(value instanceof JsonArray array)) {
      throw JsonFields.typeError(where + ".tool_calls", "an array", value);
    }
    List<ToolCall> calls = new ArrayList<>();
    for (int i = 0; i < array.size(); i++) {
      String at = where + ".tool_calls[" + i + "]";
      if (!(array.getValue(i) instanceof JsonObject call)) {
        throw JsonFields.typeError(at, "an object", array.getValue(i));
      }
      Object type = call.getValue("type");
      if (type != null && !"function".equals(type)) {
        throw ApiError.invalid(at + ".type", "\"" + at + ".type\" must be \"function\"");
      }
      if (!(call.getValue("function") instanceof JsonObject fn)) {
        throw JsonFields.typeError(at + ".function", "an object with \"name\" and \"arguments\"",
            call.getValue("function"));
      }
      if (!(fn.getValue("name") instanceof String name) || name.isEmpty()) {
        throw ApiError.invalid(at + ".function.name", "\"" + at + ".function.name\" is required");
      }
      Object args = fn.getValue("arguments");
      String arguments = args instanceof String s ? s
          : args instanceof JsonObject o ? o.encode()
          : args == null ? "{}" : null;
      if (arguments == null) {
        throw JsonFields.typeError(at + ".function.arguments", "a JSON string", args);
      }
      calls.add(new ToolCall(text(call, "id", at), name, arguments));
    }
    return calls;
  }

  /** The chars of its text that a chat template can write: content, names, ids, tool calls. */
  public int textChars() {
    int chars = length(content) + length(name) + length(toolCallId) + length(reasoningContent);
    for (ToolCall c : toolCalls) {
      chars += length(c.id()) + c.name().length() + c.arguments().length();
    }
    return chars;
  }

  private static int length(String s) {
    return s == null ? 0 : s.length();
  }

  /**
   * The message as chat templates expect it: {@code role}, {@code content} (null when absent), and
   * when present {@code name}, {@code tool_calls} (arguments decoded to an object when they are a
   * JSON object, since templates write them with {@code tojson}, as vLLM passes them),
   * {@code tool_call_id} and {@code reasoning_content}.
   */
  public JsonObject toTemplateJson() {
    JsonObject m = new JsonObject().put("role", role).put("content", content);
    if (name != null) {
      m.put("name", name);
    }
    if (!toolCalls.isEmpty()) {
      JsonArray calls = new JsonArray();
      for (ToolCall c : toolCalls) {
        JsonObject call = new JsonObject();
        if (c.id() != null) {
          call.put("id", c.id());
        }
        calls.add(call.put("type", "function").put("function",
            new JsonObject().put("name", c.name()).put("arguments", decodedArguments(c.arguments()))));
      }
      m.put("tool_calls", calls);
    }
    if (toolCallId != null) {
      m.put("tool_call_id", toolCallId);
    }
    if (reasoningContent != null) {
      m.put("reasoning_content", reasoningContent);
    }
    return m;
  }

  private static Object decodedArguments(String arguments) {
    try {
      Object decoded = Json.decodeValue(arguments);
      return decoded instanceof JsonObject ? decoded : arguments;
    } catch (DecodeException e) {
      return arguments;
    }
  }
}
