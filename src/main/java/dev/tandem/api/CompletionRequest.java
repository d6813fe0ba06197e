package dev.tandem.api;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
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
 * @param controls penalties, logit bias, top-k and response format ({@link SamplingControls})
 */
public record CompletionRequest(String model, Prompt prompt, Integer maxTokens, double temperature,
    double topP, Long seed, List<String> stop, int n, Integer logprobs, boolean echo,
    boolean stream, boolean includeUsage, String user, String suffix, boolean ignoreEos,
    JsonObject debugConfig, SamplingControls controls) {

  public static final int MAX_N = SamplingFields.MAX_N;
  public static final int MAX_LOGPROBS = 5;
  public static final int MAX_STOP_STRINGS = SamplingFields.MAX_STOP_STRINGS;

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
    SamplingFields sampling = SamplingFields.parse(body);
    Integer logprobs = JsonFields.optInt(body, "logprobs");
    if (logprobs != null && (logprobs < 0 || logprobs > MAX_LOGPROBS)) {
      throw ApiError.invalid("logprobs",
          "\"logprobs\" must be between 0 and " + MAX_LOGPROBS + ", got " + logprobs);
    }
    boolean echo = Boolean.TRUE.equals(JsonFields.optBoolean(body, "echo"));
    String suffix = JsonFields.optString(body, "suffix");
    return of(model, prompt, sampling, logprobs, echo, suffix);
  }

  /** A completion with the shared generation fields, as completions and chat parse them. */
  public static CompletionRequest of(String model, Prompt prompt, SamplingFields s, Integer logprobs,
      boolean echo, String suffix) {
    return new CompletionRequest(model, prompt, s.maxTokens(), s.temperature(), s.topP(), s.seed(),
        s.stop(), s.n(), logprobs, echo, s.stream(), s.includeUsage(), s.user(), suffix,
        s.ignoreEos(), s.debugConfig(), s.controls());
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
      java.util.List<?> raw = array.getList(); // getValue wraps each element: costly per token id
      if (raw instanceof JsonInts read) {
        return Prompt.ofTokens(read.ids()); // read as plain non-negative ints (JsonTree)
      }
      int[] ids = new int[array.size()];
      for (int i = 0; i < ids.length; i++) {
        Object e = raw.get(i);
        if (!(e instanceof Integer)) {
          e = array.getValue(i); // as Vert.x gives it, for the checks and messages below
        }
        if (!(e instanceof Integer || e instanceof Long)) {
          throw ApiError.invalid("prompt", "invalid_type", e instanceof String && i == 0
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

  /** The request id MLC uses: {@code user} when set, else {@code cmpl-<32 hex>}. */
  public String requestIdOr(java.util.function.Supplier<String> generated) {
    return user != null ? user : generated.get();
  }

  /** A fresh {@code cmpl-<32 lowercase hex>} id as MLC makes them. */
  public static String newCompletionId() {
    return "cmpl-" + java.util.UUID.randomUUID().toString().replace("-", "");
  }
}
