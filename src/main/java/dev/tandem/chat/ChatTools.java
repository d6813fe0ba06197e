package dev.tandem.chat;

import dev.tandem.api.ApiError;
import dev.tandem.api.JsonFields;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A chat request's {@code tools} and {@code tool_choice}, checked as OpenAI checks them.
 *
 * @param tools the function tools as sent ({@code {type: "function", function: {name, ...}}}), or
 *     null when the request has none (templates then see None)
 * @param choice {@code "auto"} or {@code "none"}: forcing a call ({@code "required"}, a named
 *     function) needs constrained decoding, which this server does not do, so those are refused
 */
public record ChatTools(JsonArray tools, String choice) {
  private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");

  public static final ChatTools NONE = new ChatTools(null, "none");

  /** True when the answer should be searched for tool calls. */
  public boolean callsAllowed() {
    return tools != null && !tools.isEmpty() && !choice.equals("none");
  }

  public List<String> names() {
    List<String> names = new ArrayList<>();
    if (tools != null) {
      for (Object t : tools) {
        names.add(((JsonObject) t).getJsonObject("function").getString("name"));
      }
    }
    return names;
  }

  static ChatTools parse(JsonObject body) {
    Object value = body.getValue("tools");
    JsonArray tools = null;
    if (value != null) {
      if (!(value instanceof JsonArray array)) {
        throw JsonFields.typeError("tools", "an array of tools", value);
      }
      for (int i = 0; i < array.size(); i++) {
        checkTool(array.getValue(i), "tools[" + i + "]");
      }
      tools = array;
    }
    String choice = choice(body.getValue("tool_choice"), tools);
    JsonFields.optBoolean(body, "parallel_tool_calls");
    return new ChatTools(tools, choice);
  }

  private static void checkTool(Object value, String at) {
    if (!(value instanceof JsonObject tool)) {
      throw JsonFields.typeError(at, "an object {\"type\": \"function\", \"function\": {...}}", value);
    }
    if (!"function".equals(tool.getValue("type"))) {
      throw ApiError.invalid(at + ".type", "\"" + at + ".type\" must be \"function\", got "
          + JsonFields.describe(tool.getValue("type")));
    }
    if (!(tool.getValue("function") instanceof JsonObject fn)) {
      throw JsonFields.typeError(at + ".function", "an object with a \"name\"", tool.getValue("function"));
    }
    Object name = fn.getValue("name");
    if (!(name instanceof String s) || !NAME.matcher(s).matches()) {
      throw ApiError.invalid(at + ".function.name", "\"" + at + ".function.name\" must be 1 to 64"
          + " letters, digits, underscores or dashes, got " + JsonFields.describe(name));
    }
    Object description = fn.getValue("description");
    if (description != null && !(description instanceof String)) {
      throw JsonFields.typeError(at + ".function.description", "a string", description);
    }
    Object parameters = fn.getValue("parameters");
    if (parameters != null && !(parameters instanceof JsonObject)) {
      throw JsonFields.typeError(at + ".function.parameters", "a JSON Schema object", parameters);
    }
  }

  private static String choice(Object value, JsonArray tools) {
    if (value == null) {
      return tools == null || tools.isEmpty() ? "none" : "auto";
    }
    if (value instanceof String s && (s.equals("auto") || s.equals("none"))) {
      if (s.equals("auto") && tools == null) {
        throw ApiError.invalid("tool_choice", "\"tool_choice\" is \"auto\" but the request has no \"tools\"");
      }
      return s;
    }
    if (value instanceof String s && s.equals("required") || value instanceof JsonObject) {
      throw ApiError.invalid("tool_choice", "unsupported_tool_choice", "\"tool_choice\" "
          + (value instanceof String ? "\"required\"" : "naming a function")
          + " is not supported: forcing a tool call needs constrained decoding, which this server"
          + " does not do; use \"auto\"");
    }
    throw ApiError.invalid("tool_choice", "\"tool_choice\" must be \"none\", \"auto\", \"required\""
        + " or {\"type\": \"function\", \"function\": {\"name\": ...}}, got " + JsonFields.describe(value));
  }
}
