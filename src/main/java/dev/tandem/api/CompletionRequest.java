package dev.tandem.api;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A parsed and validated {@code POST /v1/completions} body (MLC's {@code CompletionRequest}).
 * Checks that need a model (vocabulary, context length) are left to the engine; everything else is
 * checked here, so a router can reject bad requests before they reach an engine. Unknown fields are
 * ignored, as MLC (pydantic) does.
 *
 * @param maxTokens null = generate until a stop or the context limit
 * @param seed null = the engine picks a random one
 * @param logprobs null = off, else 0..5 alternatives per token
 * @param includeUsage {@code stream_options.include_usage}
 * @param ignoreEos {@code debug_config.ignore_eos}
 * @param debugConfig {@code debug_config} as sent (null when absent)
 */
public record CompletionRequest(String model, Prompt prompt, Integer maxTokens, double temperature,
    double topP, Long seed, List<String> stop, int n, Integer logprobs, boolean echo,
    boolean stream, boolean includeUsage, String user, String suffix, boolean ignoreEos,
    JsonObject debugConfig) {

  public static final int MAX_N = 128;
  public static final int MAX_LOGPROBS = 5;
  public static final int MAX_STOP_STRINGS = 16;

  /** Parses a raw body; malformed JSON or a non-object is a 400. */
  public static CompletionRequest parse(Buffer body) {
    return parse(parseObject(body));
  }

  /** Parses a raw body into a JSON object, or a 400 that says what is wrong with it. */
  public static JsonObject parseObject(Buffer body) {
    if (body == null || body.length() == 0) {
      throw ApiError.invalid(null, "Request body is empty: send a JSON object");
    }
    Object value;
    try {
      value = body.toJsonValue();
    } catch (DecodeException e) {
      throw ApiError.invalid(null, "invalid_json", "Request body is not valid JSON: " + e.getMessage());
    }
    if (!(value instanceof JsonObject o)) {
      throw ApiError.invalid(null, "invalid_json", "Request body must be a JSON object");
    }
    return o;
  }

  public static CompletionRequest parse(JsonObject body) {
    String model = JsonFields.optString(body, "model");
    Prompt prompt = parsePrompt(body.getValue("prompt"));

    Integer bestOf = JsonFields.optInt(body, "best_of");
    if (bestOf != null && bestOf != 1) {
      throw ApiError.invalid("best_of", "Request fields \"best_of\" are not supported right now.");
    }
    Integer maxTokens = JsonFields.optInt(body, "max_tokens");
    if (maxTokens != null && maxTokens < 0) {
      throw ApiError.invalid("max_tokens", "\"max_tokens\" must be >= 0, got " + maxTokens);
    }
    Double temperature = JsonFields.optDouble(body, "temperature");
    if (temperature != null && temperature < 0) {
      throw ApiError.invalid("temperature", "\"temperature\" must be >= 0, got " + temperature);
    }
    Double topP = JsonFields.optDouble(body, "top_p");
    if (topP != null && (topP <= 0 || topP > 1)) {
      throw ApiError.invalid("top_p", "\"top_p\" must be in (0, 1], got " + topP);
    }
    Long seed = JsonFields.optLong(body, "seed");
    Integer n = JsonFields.optInt(body, "n");
    if (n != null && (n < 1 || n > MAX_N)) {
      throw ApiError.invalid("n", "\"n\" must be between 1 and " + MAX_N + ", got " + n);
    }
    Integer logprobs = JsonFields.optInt(body, "logprobs");
    if (logprobs != null && (logprobs < 0 || logprobs > MAX_LOGPROBS)) {
      throw ApiError.invalid("logprobs",
          "\"logprobs\" must be between 0 and " + MAX_LOGPROBS + ", got " + logprobs);
    }
    rejectUnsupportedPenalty(body, "frequency_penalty");
    rejectUnsupportedPenalty(body, "presence_penalty");
    JsonObject logitBias = JsonFields.optObject(body, "logit_bias");
    if (logitBias != null && !logitBias.isEmpty()) {
      throw ApiError.invalid("logit_bias", "\"logit_bias\" is not supported by this server");
    }
    JsonObject responseFormat = JsonFields.optObject(body, "response_format");
    if (responseFormat != null) {
      String type = JsonFields.optString(responseFormat, "type");
      if (type != null && !type.equals("text")) {
        throw ApiError.invalid("response_format",
            "response_format type \"" + type + "\" is not supported by this server (only \"text\")");
      }
    }
    boolean echo = Boolean.TRUE.equals(JsonFields.optBoolean(body, "echo"));
    boolean stream = Boolean.TRUE.equals(JsonFields.optBoolean(body, "stream"));
    JsonObject streamOptions = JsonFields.optObject(body, "stream_options");
    boolean includeUsage = streamOptions != null
        && Boolean.TRUE.equals(JsonFields.optBoolean(streamOptions, "include_usage"));
    List<String> stop = parseStop(body.getValue("stop"));
    String user = JsonFields.optString(body, "user");
    if (user != null && user.isEmpty()) {
      throw ApiError.invalid("user", "\"user\" (the request id) must not be empty");
    }
    String suffix = JsonFields.optString(body, "suffix");
    JsonObject debugConfig = JsonFields.optObject(body, "debug_config");
    boolean ignoreEos = debugConfig != null
        && Boolean.TRUE.equals(JsonFields.optBoolean(debugConfig, "ignore_eos"));

    return new CompletionRequest(model, prompt, maxTokens, temperature == null ? 1.0 : temperature,
        topP == null ? 1.0 : topP, seed, stop, n == null ? 1 : n, logprobs, echo, stream,
        includeUsage, user, suffix, ignoreEos, debugConfig);
  }

  static Prompt parsePrompt(Object value) {
    if (value == null) {
      throw ApiError.invalid("prompt", "\"prompt\" is required");
    }
    if (value instanceof String s) {
      if (s.isEmpty()) {
        throw ApiError.invalid("prompt", "Invalid request prompt: it is empty");
      }
      return Prompt.ofText(s);
    }
    if (value instanceof JsonArray array) {
      if (array.isEmpty()) {
        throw ApiError.invalid("prompt", "Invalid request prompt: it is empty");
      }
      int[] ids = new int[array.size()];
      for (int i = 0; i < ids.length; i++) {
        Object e = array.getValue(i);
        if (!(e instanceof Integer || e instanceof Long)) {
          throw ApiError.invalid("prompt", "invalid_type", e instanceof String
              ? "\"prompt\" as a list of strings (several prompts) is not supported: send one prompt"
              : "\"prompt\" must be a string or an array of integer token ids; element " + i
                  + " is " + JsonFields.describe(e));
        }
        long id = ((Number) e).longValue();
        if (id < 0 || id > Integer.MAX_VALUE) {
          throw ApiError.invalid("prompt", "invalid_token",
              "\"prompt\" token id " + id + " at index " + i + " is out of range");
        }
        ids[i] = (int) id;
      }
      return Prompt.ofTokens(ids);
    }
    throw JsonFields.typeError("prompt", "a string or an array of token ids", value);
  }

  static List<String> parseStop(Object value) {
    List<String> stop = new ArrayList<>();
    if (value == null) {
      return List.of();
    }
    if (value instanceof String s) {
      if (!s.isEmpty()) {
        stop.add(s);
      }
    } else if (value instanceof JsonArray array) {
      for (Object e : array) {
        if (!(e instanceof String s)) {
          throw JsonFields.typeError("stop", "a string or an array of strings", e);
        }
        if (!s.isEmpty()) {
          stop.add(s);
        }
      }
    } else {
      throw JsonFields.typeError("stop", "a string or an array of strings", value);
    }
    if (stop.size() > MAX_STOP_STRINGS) {
      throw ApiError.invalid("stop", "at most " + MAX_STOP_STRINGS + " stop strings are allowed");
    }
    return List.copyOf(stop);
  }

  private static void rejectUnsupportedPenalty(JsonObject body, String name) {
    Double v = JsonFields.optDouble(body, name);
    if (v == null) {
      return;
    }
    if (v < -2 || v > 2) {
      throw ApiError.invalid(name, "\"" + name + "\" must be in [-2, 2], got " + v);
    }
    if (v != 0) {
      throw ApiError.invalid(name, "\"" + name + "\" is not supported by this server (use 0 or null)");
    }
  }

  /** The request id MLC uses: {@code user} when set, else {@code cmpl-<32 hex>}. */
  public String requestIdOr(java.util.function.Supplier<String> generated) {
    return user != null ? user : generated.get();
  }

  /** A fresh {@code cmpl-<32 lowercase hex>} id as MLC makes them. */
  public static String newCompletionId() {
    return "cmpl-" + java.util.UUID.randomUUID().toString().replace("-", "");
  }
}
