package dev.tandem.api;

import io.vertx.core.json.JsonObject;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The generation controls beyond temperature and top-p that MLC engines serve and OpenAI
 * defines: {@code frequency_penalty}, {@code presence_penalty}, {@code logit_bias},
 * {@code top_k} and {@code response_format}; parsed and range-checked here, with MLC's limits
 * (penalties in [-2, 2], biases in [-100, 100]). Whether an engine can honour them is the
 * engine's (and the router's, per engine kind) business, not the parser's.
 *
 * @param frequencyPenalty subtracted once per earlier occurrence of a token in the output; 0 off
 * @param presencePenalty subtracted once from every token already in the output; 0 off
 * @param logitBias token id to the value added to its logit; empty for none
 * @param topK sample among the k most likely tokens only; 0 for all (the request's -1 or 0)
 * @param responseFormat the structured output asked for, or null for plain text
 */
public record SamplingControls(double frequencyPenalty, double presencePenalty,
    Map<Integer, Double> logitBias, int topK, ResponseFormat responseFormat) {

  public static final double MAX_PENALTY = 2;
  public static final double MAX_BIAS = 100;

  public static final SamplingControls NONE =
      new SamplingControls(0, 0, Map.of(), 0, null);

  public SamplingControls {
    logitBias = logitBias.isEmpty() ? Map.of() // most requests: no sorted copy to make
        : Collections.unmodifiableMap(new TreeMap<>(logitBias));
  }

  /** Whether any control changes what plain temperature + top-p sampling would do. */
  public boolean any() {
    return frequencyPenalty != 0 || presencePenalty != 0 || !logitBias.isEmpty() || topK > 0
        || (responseFormat != null && !responseFormat.isText());
  }

  /** Parses the controls of a request body; a 400 {@link ApiError} names what is wrong. */
  public static SamplingControls parse(JsonObject body) {
    double frequency = penalty(body, "frequency_penalty");
    double presence = penalty(body, "presence_penalty");
    Map<Integer, Double> bias = logitBias(JsonFields.optObject(body, "logit_bias"));
    Integer topK = JsonFields.optInt(body, "top_k");
    if (topK != null && topK < -1) {
      throw ApiError.invalid("top_k", "\"top_k\" must be -1 or 0 (all tokens) or at least 1, got "
          + topK);
    }
    ResponseFormat format = ResponseFormat.parse(JsonFields.optObject(body, "response_format"));
    return new SamplingControls(frequency, presence, bias, topK == null ? 0 : Math.max(topK, 0),
        format);
  }

  /** Every biased token id must lie in {@code [0, vocabSize)} (0 = vocabulary unknown: no check). */
  public void checkVocabulary(int vocabSize) {
    if (!logitBias.isEmpty()) { // every request asks: no stream set up for the usual empty map
      checkBiasTokens(logitBias.keySet().stream().mapToInt(Integer::intValue).toArray(), vocabSize);
    }
  }

  /**
   * The one rule for {@code logit_bias} tokens, as the router and the builtin engine check it:
   * every id in {@code [0, vocabSize)} (0 = unknown vocabulary: no check); a 400 otherwise.
   */
  public static void checkBiasTokens(int[] ids, int vocabSize) {
    if (vocabSize <= 0) {
      return;
    }
    for (int id : ids) {
      if (id < 0 || id >= vocabSize) {
        throw ApiError.invalid("logit_bias", "invalid_token", "\"logit_bias\" names token " + id
            + ", outside the vocabulary (0.." + (vocabSize - 1) + ")");
      }
    }
  }


  private static double penalty(JsonObject body, String name) {
    Double v = JsonFields.optDouble(body, name);
    if (v == null) {
      return 0;
    }
    if (v < -MAX_PENALTY || v > MAX_PENALTY) {
      throw ApiError.invalid(name, "\"" + name + "\" must be in [-2, 2], got " + v);
    }
    return v;
  }

  private static Map<Integer, Double> logitBias(JsonObject bias) {
    if (bias == null) {
      return Map.of();
    }
    Map<Integer, Double> out = new TreeMap<>();
    for (Map.Entry<String, Object> e : bias) {
      int id;
      try {
        id = Integer.parseInt(e.getKey().trim());
      } catch (NumberFormatException notAnId) {
        throw ApiError.invalid("logit_bias", "\"logit_bias\" keys are token ids (integers), got \""
            + e.getKey() + "\"");
      }
      if (id < 0) {
        throw ApiError.invalid("logit_bias", "\"logit_bias\" token id " + id + " is negative");
      }
      if (!(e.getValue() instanceof Number n)) {
        throw JsonFields.typeError("logit_bias", "a number per token id", e.getValue());
      }
      double value = n.doubleValue();
      if (!(Math.abs(value) <= MAX_BIAS)) {
        throw ApiError.invalid("logit_bias", "\"logit_bias\" values must be in [-100, 100], got "
            + value + " for token " + id);
      }
      out.put(id, value);
    }
    return out;
  }

  /**
   * {@code response_format}: plain text, or JSON output, optionally under a JSON schema.
   * Accepted as MLC names it ({@code {"type": "json_object", "schema": "<schema text>"}}, the
   * Python attribute {@code json_schema} too) and as OpenAI does
   * ({@code {"type": "json_schema", "json_schema": {"name", "schema": {...}}}}).
   *
   * @param schema the JSON schema as text, or null for any JSON object
   */
  public record ResponseFormat(String type, String schema) {

    public static final String TEXT = "text";
    public static final String JSON_OBJECT = "json_object";

    public boolean isText() {
      return TEXT.equals(type);
    }

    static ResponseFormat parse(JsonObject format) {
      if (format == null) {
        return null;
      }
      String type = JsonFields.optString(format, "type");
      if (type == null || type.equals(TEXT)) {
        return new ResponseFormat(TEXT, null);
      }
      if (type.equals(JSON_OBJECT)) {
        Object schema = format.getValue("schema");
        return new ResponseFormat(JSON_OBJECT, schemaText(schema != null ? schema
            : format.getValue("json_schema")));
      }
      if (type.equals("json_schema")) {
        JsonObject spec = JsonFields.optObject(format, "json_schema");
        if (spec == null || spec.getValue("schema") == null) {
          throw ApiError.invalid("response_format", "response_format type \"json_schema\" needs"
              + " \"json_schema\": {\"name\": ..., \"schema\": {...}}");
        }
        return new ResponseFormat(JSON_OBJECT, schemaText(spec.getValue("schema")));
      }
      throw ApiError.invalid("response_format", "response_format type \"" + type
          + "\" is unknown: use \"text\", \"json_object\" or \"json_schema\"");
    }

    private static String schemaText(Object schema) {
      if (schema == null) {
        return null;
      }
      if (schema instanceof String s) {
        return s;
      }
      if (schema instanceof JsonObject o) {
        return o.encode();
      }
      throw JsonFields.typeError("response_format", "a JSON schema (object or text)", schema);
    }

    /**
     * The object MLC engines read, with its alias key {@code schema} (reference §6 item 10: MLC's
     * own router sends the Python name {@code json_schema}, which engines ignore).
     */
    public JsonObject toMlcJson() {
      return new JsonObject().put("type", type).put("schema", schema);
    }
  }
}
