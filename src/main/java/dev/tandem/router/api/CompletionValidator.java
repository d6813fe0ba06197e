package dev.tandem.router.api;

import dev.tandem.router.ModelInfo;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;
import java.util.Set;

/**
 * Checks a {@code POST /v1/completions} body before any engine sees it, with the engine's rules
 * (reference §3.1 and the engine issue): types, ranges, prompt shape, then, once the prompt is
 * tokens, vocabulary and context length. Unknown fields are ignored, as MLC's pydantic models do.
 * Every failure names the field and what is allowed.
 */
public final class CompletionValidator {

  public static final int MAX_N = 128;
  public static final int MAX_LOGPROBS = 5;
  public static final int MAX_STOP_STRINGS = 16;

  /** Fields passed on to engines unchanged (everything else the router sets per attempt). */
  private static final Set<String> PASSED_ON = Set.of("frequency_penalty", "presence_penalty",
      "logprobs", "logit_bias", "seed", "stop", "temperature", "top_p", "response_format");
  private static final Set<String> CLIENT_DEBUG_FIELDS = Set.of("ignore_eos",
      "pinned_system_prompt", "grammar_execution_mode");

  private CompletionValidator() {}

  public static ParsedCompletion parse(JsonObject body, ModelInfo model) {
    String modelName = optString(body, "model");
    Object prompt = body.getValue("prompt");
    String promptText = null;
    int[] promptIds = null;
    if (prompt == null) {
      throw invalid("prompt", "missing_required_parameter", "prompt is required: a string or an array of token ids");
    } else if (prompt instanceof String s) {
      if (s.isEmpty()) {
        throw invalid("prompt", "invalid_value", "prompt must not be empty");
      }
      promptText = s;
    } else if (prompt instanceof JsonArray a) {
      promptIds = tokenIds(a);
    } else {
      throw invalid("prompt", "invalid_type", "prompt must be a string or an array of token ids, got "
          + typeName(prompt));
    }
    Integer bestOf = optInt(body, "best_of", 1, 1);
    if (bestOf != null && bestOf != 1) {
      throw invalid("best_of", "unsupported_parameter", "best_of other than 1 is not supported");
    }
    Integer n = optInt(body, "n", 1, MAX_N);
    Integer maxTokens = optInt(body, "max_tokens", 0, Integer.MAX_VALUE);
    Boolean stream = optBool(body, "stream");
    Boolean echo = optBool(body, "echo");
    Integer logprobs = optInt(body, "logprobs", 0, MAX_LOGPROBS);
    Double temperature = optNumber(body, "temperature", 0, Double.MAX_VALUE, "at least 0");
    Double topP = optNumber(body, "top_p", 0, 1, "in (0, 1]");
    if (topP != null && topP == 0) {
      throw invalid("top_p", "invalid_value", "top_p must be in (0, 1], got 0");
    }
    Double frequency = optNumber(body, "frequency_penalty", -2, 2, "in [-2, 2]");
    Double presence = optNumber(body, "presence_penalty", -2, 2, "in [-2, 2]");
    Long seed = optLong(body, "seed");
    optString(body, "user");
    checkStop(body.getValue("stop"));
    checkLogitBias(body.getValue("logit_bias"), model);
    checkResponseFormat(body.getValue("response_format"));
    if (body.getValue("suffix") != null) {
      throw invalid("suffix", "unsupported_parameter", "suffix is not supported");
    }
    boolean includeUsage = streamOptions(body.getValue("stream_options"));
    JsonObject debug = clientDebug(body.getValue("debug_config"));

    JsonObject engineFields = new JsonObject();
    for (String key : PASSED_ON) {
      if (body.getValue(key) != null) {
        engineFields.put(key, body.getValue(key));
      }
    }
    if (debug != null) {
      engineFields.put("debug_config", debug);
    }
    boolean penalties = (frequency != null && frequency != 0) || (presence != null && presence != 0);
    if (promptIds != null) {
      checkTokens(promptIds, maxTokens, model);
    }
    return new ParsedCompletion(modelName, promptText, promptIds, n == null ? 1 : n, maxTokens,
        Boolean.TRUE.equals(stream), includeUsage, Boolean.TRUE.equals(echo), logprobs,
        temperature, seed, penalties, engineFields);
  }

  /** Checks the tokenized prompt: not empty, every id in the vocabulary, prompt and budget within the context. */
  public static void checkTokens(int[] promptIds, Integer maxTokens, ModelInfo model) {
    if (promptIds.length == 0) {
      throw invalid("prompt", "invalid_value", "prompt must have at least one token");
    }
    if (model.vocabSize() > 0) {
      for (int i = 0; i < promptIds.length; i++) {
        if (promptIds[i] < 0 || promptIds[i] >= model.vocabSize()) {
          throw invalid("prompt", "invalid_value", "prompt token " + promptIds[i] + " at position "
              + i + " is outside the vocabulary [0, " + model.vocabSize() + ")");
        }
      }
    }
    int context = model.contextLength();
    if (context > 0) {
      if (promptIds.length >= context) {
        throw invalid("prompt", "context_length_exceeded", "prompt has " + promptIds.length
            + " tokens, the model's context is " + context + " tokens; shorten the prompt");
      }
      if (maxTokens != null && (long) promptIds.length + maxTokens > context) {
        throw invalid("max_tokens", "context_length_exceeded", "prompt (" + promptIds.length
            + " tokens) plus max_tokens (" + maxTokens + ") exceeds the model's context of "
            + context + " tokens; lower max_tokens to at most " + (context - promptIds.length));
      }
    }
  }

  private static int[] tokenIds(JsonArray a) {
    if (a.isEmpty()) {
      throw invalid("prompt", "invalid_value", "prompt must not be empty");
    }
    int[] ids = new int[a.size()];
    for (int i = 0; i < ids.length; i++) {
      Object v = a.getValue(i);
      Long l = integral(v);
      if (l == null || l < Integer.MIN_VALUE || l > Integer.MAX_VALUE) {
        throw invalid("prompt", "invalid_type", "prompt arrays must hold integer token ids; element "
            + i + " is " + typeName(v) + " (arrays of strings are not supported)");
      }
      ids[i] = l.intValue();
    }
    return ids;
  }

  private static void checkStop(Object stop) {
    if (stop == null || stop instanceof String) {
      return;
    }
    if (!(stop instanceof JsonArray a)) {
      throw invalid("stop", "invalid_type", "stop must be a string or an array of strings, got " + typeName(stop));
    }
    if (a.size() > MAX_STOP_STRINGS) {
      throw invalid("stop", "invalid_value", "at most " + MAX_STOP_STRINGS + " stop strings, got " + a.size());
    }
    for (Object s : a) {
      if (!(s instanceof String str) || str.isEmpty()) {
        throw invalid("stop", "invalid_value", "every stop entry must be a non-empty string");
      }
    }
  }

  private static void checkLogitBias(Object bias, ModelInfo model) {
    if (bias == null) {
      return;
    }
    if (!(bias instanceof JsonObject o)) {
      throw invalid("logit_bias", "invalid_type", "logit_bias must be an object of token id -> bias");
    }
    for (Map.Entry<String, Object> e : o) {
      int id;
      try {
        id = Integer.parseInt(e.getKey());
      } catch (NumberFormatException ex) {
        throw invalid("logit_bias", "invalid_value", "logit_bias key '" + e.getKey() + "' is not a token id");
      }
      if (id < 0 || (model.vocabSize() > 0 && id >= model.vocabSize())) {
        throw invalid("logit_bias", "invalid_value", "logit_bias token " + id + " is outside the vocabulary");
      }
      if (!(e.getValue() instanceof Number v) || Math.abs(v.doubleValue()) > 100
          || Double.isNaN(v.doubleValue())) {
        throw invalid("logit_bias", "invalid_value", "logit_bias values must be numbers in [-100, 100]");
      }
    }
  }

  private static void checkResponseFormat(Object rf) {
    if (rf == null) {
      return;
    }
    if (!(rf instanceof JsonObject o) || !"text".equals(o.getValue("type"))) {
      throw invalid("response_format", "unsupported_parameter",
          "only response_format {\"type\": \"text\"} is supported");
    }
  }

  private static boolean streamOptions(Object so) {
    if (so == null) {
      return false;
    }
    if (!(so instanceof JsonObject o)) {
      throw invalid("stream_options", "invalid_type", "stream_options must be an object");
    }
    Object v = o.getValue("include_usage");
    if (v != null && !(v instanceof Boolean)) {
      throw invalid("stream_options", "invalid_type", "stream_options.include_usage must be a boolean");
    }
    return Boolean.TRUE.equals(v);
  }

  private static JsonObject clientDebug(Object dc) {
    if (dc == null) {
      return null;
    }
    if (!(dc instanceof JsonObject o)) {
      throw invalid("debug_config", "invalid_type", "debug_config must be an object");
    }
    JsonObject out = new JsonObject();
    for (Map.Entry<String, Object> e : o) {
      if (e.getValue() == null) {
        continue;
      }
      if (!CLIENT_DEBUG_FIELDS.contains(e.getKey())) {
        throw invalid("debug_config", "unsupported_parameter", "debug_config." + e.getKey()
            + " is set by the router, not by clients; allowed: " + CLIENT_DEBUG_FIELDS);
      }
      out.put(e.getKey(), e.getValue());
    }
    if (out.getValue("ignore_eos") != null && !(out.getValue("ignore_eos") instanceof Boolean)) {
      throw invalid("debug_config", "invalid_type", "debug_config.ignore_eos must be a boolean");
    }
    return out;
  }

  private static String optString(JsonObject body, String key) {
    Object v = body.getValue(key);
    if (v != null && !(v instanceof String)) {
      throw invalid(key, "invalid_type", key + " must be a string, got " + typeName(v));
    }
    return (String) v;
  }

  private static Boolean optBool(JsonObject body, String key) {
    Object v = body.getValue(key);
    if (v != null && !(v instanceof Boolean)) {
      throw invalid(key, "invalid_type", key + " must be a boolean, got " + typeName(v));
    }
    return (Boolean) v;
  }

  private static Integer optInt(JsonObject body, String key, int min, int max) {
    Object v = body.getValue(key);
    if (v == null) {
      return null;
    }
    Long l = integral(v);
    if (l == null) {
      throw invalid(key, "invalid_type", key + " must be an integer, got " + typeName(v));
    }
    if (l < min || l > max) {
      throw invalid(key, "invalid_value", key + " must be "
          + (max == Integer.MAX_VALUE ? "at least " + min : "in [" + min + ", " + max + "]") + ", got " + l);
    }
    return l.intValue();
  }

  private static Long optLong(JsonObject body, String key) {
    Object v = body.getValue(key);
    if (v == null) {
      return null;
    }
    Long l = integral(v);
    if (l == null) {
      throw invalid(key, "invalid_type", key + " must be an integer, got " + typeName(v));
    }
    return l;
  }

  private static Double optNumber(JsonObject body, String key, double min, double max, String range) {
    Object v = body.getValue(key);
    if (v == null) {
      return null;
    }
    if (!(v instanceof Number num)) {
      throw invalid(key, "invalid_type", key + " must be a number, got " + typeName(v));
    }
    double d = num.doubleValue();
    if (Double.isNaN(d) || d < min || d > max) {
      throw invalid(key, "invalid_value", key + " must be " + range + ", got " + v);
    }
    return d;
  }

  /** The value as a long if it is an integral JSON number (1 and 1.0 alike), else null. */
  private static Long integral(Object v) {
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof BigInteger b) {
      return b.bitLength() < 64 ? b.longValue() : null;
    }
    if (v instanceof Double || v instanceof Float || v instanceof BigDecimal) {
      double d = ((Number) v).doubleValue();
      if (Double.isFinite(d) && d == Math.rint(d) && Math.abs(d) < 9.0e15) {
        return (long) d;
      }
    }
    return null;
  }

  private static String typeName(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof String) {
      return "a string";
    }
    if (v instanceof Boolean) {
      return "a boolean";
    }
    if (v instanceof Number) {
      return "the number " + v;
    }
    if (v instanceof JsonArray) {
      return "an array";
    }
    if (v instanceof JsonObject) {
      return "an object";
    }
    return v.getClass().getSimpleName();
  }

  private static InvalidRequestException invalid(String param, String code, String message) {
    return new InvalidRequestException(param, code, message);
  }
}
