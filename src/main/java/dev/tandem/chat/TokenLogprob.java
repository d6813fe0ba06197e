package dev.tandem.chat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One generated token's logprob and its likeliest alternatives, as completions report them, and
 * its chat shape {@code {token, logprob, bytes, top_logprobs: [{token, logprob, bytes}]}}.
 */
public record TokenLogprob(String token, double logprob, List<Alternative> top) {

  /** An alternative token. */
  public record Alternative(String token, double logprob) {}

  public TokenLogprob {
    top = List.copyOf(top);
  }

  /**
   * The tokens of a completion's {@code logprobs} ({@code CompletionLogProbs}: {@code tokens},
   * {@code token_logprobs}, {@code top_logprobs} as a list of {token: logprob} objects).
   */
  public static List<TokenLogprob> fromCompletion(JsonObject logprobs) {
    List<TokenLogprob> result = new ArrayList<>();
    if (logprobs == null) {
      return result;
    }
    JsonArray tokens = logprobs.getJsonArray("tokens", new JsonArray());
    JsonArray values = logprobs.getJsonArray("token_logprobs", new JsonArray());
    JsonArray top = logprobs.getJsonArray("top_logprobs", new JsonArray());
    for (int i = 0; i < tokens.size(); i++) {
      List<Alternative> alternatives = new ArrayList<>();
      if (i < top.size() && top.getValue(i) instanceof JsonObject alts) {
        for (Map.Entry<String, Object> e : alts) {
          alternatives.add(new Alternative(e.getKey(), ((Number) e.getValue()).doubleValue()));
        }
      }
      Number value = (Number) values.getValue(i);
      result.add(new TokenLogprob(tokens.getString(i), value == null ? 0 : value.doubleValue(), alternatives));
    }
    return result;
  }

  /** The chat shape of this token. */
  public JsonObject toChatJson() {
    JsonArray alternatives = new JsonArray();
    for (Alternative a : top) {
      alternatives.add(entry(a.token(), a.logprob()));
    }
    return entry(token, logprob).put("top_logprobs", alternatives);
  }

  private static JsonObject entry(String token, double logprob) {
    JsonArray bytes = new JsonArray();
    for (byte b : token.getBytes(StandardCharsets.UTF_8)) {
      bytes.add(b & 0xff);
    }
    return new JsonObject().put("token", token).put("logprob", logprob).put("bytes", bytes);
  }

  /** A choice's chat {@code logprobs}: {@code {"content": [...], "refusal": null}}. */
  public static JsonObject chatLogprobs(List<TokenLogprob> tokens) {
    JsonArray content = new JsonArray();
    tokens.forEach(t -> content.add(t.toChatJson()));
    return new JsonObject().put("content", content).putNull("refusal");
  }
}
