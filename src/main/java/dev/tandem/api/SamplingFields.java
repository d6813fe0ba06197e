package dev.tandem.api;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The generation fields {@code /v1/completions} and {@code /v1/chat/completions} share, parsed and
 * checked in one place: token limit, sampling, stop strings, {@code n}, streaming, the request id
 * ({@code user}), MLC's {@code debug_config}, and the {@link SamplingControls} (penalties, logit
 * bias, top-k, response format).
 *
 * @param maxTokens null = generate until a stop or the context limit
 * @param seed null = the engine picks a random one
 * @param includeUsage {@code stream_options.include_usage}
 * @param ignoreEos {@code debug_config.ignore_eos}
 * @param debugConfig {@code debug_config} as sent (null when absent)
 * @param controls penalties, logit bias, top-k and response format
 */
public record SamplingFields(Integer maxTokens, double temperature, double topP, Long seed,
    List<String> stop, int n, boolean stream, boolean includeUsage, String user, boolean ignoreEos,
    JsonObject debugConfig, SamplingControls controls) {

  public static final int MAX_N = 128;
  public static final int MAX_STOP_STRINGS = 16;

  public static SamplingFields parse(JsonObject body) {
    Integer maxTokens = maxTokens(body, "max_tokens");
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
    SamplingControls controls = SamplingControls.parse(body);
    boolean stream = Boolean.TRUE.equals(JsonFields.optBoolean(body, "stream"));
    JsonObject streamOptions = JsonFields.optObject(body, "stream_options");
    boolean includeUsage = streamOptions != null
        && Boolean.TRUE.equals(JsonFields.optBoolean(streamOptions, "include_usage"));
    List<String> stop = parseStop(body.getValue("stop"));
    String user = JsonFields.optString(body, "user");
    if (user != null && user.isEmpty()) {
      throw ApiError.invalid("user", "\"user\" (the request id) must not be empty");
    }
    JsonObject debugConfig = JsonFields.optObject(body, "debug_config");
    boolean ignoreEos = debugConfig != null
        && Boolean.TRUE.equals(JsonFields.optBoolean(debugConfig, "ignore_eos"));
    return new SamplingFields(maxTokens, temperature == null ? 1.0 : temperature,
        topP == null ? 1.0 : topP, seed, stop, n == null ? 1 : n, stream, includeUsage, user,
        ignoreEos, debugConfig, controls);
  }

  /** A token limit field ({@code max_tokens}, {@code max_completion_tokens}): null or >= 0. */
  public static Integer maxTokens(JsonObject body, String field) {
    Integer maxTokens = JsonFields.optInt(body, field);
    if (maxTokens != null && maxTokens < 0) {
      throw ApiError.invalid(field, "\"" + field + "\" must be >= 0, got " + maxTokens);
    }
    return maxTokens;
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
}
