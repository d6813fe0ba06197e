package dev.tandem.engine.server;

import dev.tandem.engine.sched.RequestUsage;
import dev.tandem.engine.sched.TokenLogprob;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * MLC's completion response shapes (pydantic dumps): every field present, nulls included, fields
 * in declaration order.
 */
final class CompletionJson {
  private CompletionJson() {}

  static JsonObject response(String id, JsonArray choices, long created, String model,
      JsonObject usage) {
    JsonObject o = new JsonObject().put("id", id).put("choices", choices).put("created", created);
    o.put("model", model).put("object", "text_completion").put("usage", usage);
    return o;
  }

  static JsonObject choice(int index, String text, String finishReason, JsonObject logprobs) {
    JsonObject c = new JsonObject().put("finish_reason", finishReason).put("index", index);
    c.put("logprobs", logprobs).put("text", text);
    return c;
  }

  /** {@code CompletionLogProbs} for a run of tokens. */
  static JsonObject logprobs(List<TokenLogprob> tokens) {
    JsonArray tokenLogprobs = new JsonArray();
    JsonArray texts = new JsonArray();
    JsonArray top = new JsonArray();
    appendLogprobs(tokens, tokenLogprobs, texts, top);
    JsonObject o = new JsonObject().putNull("text_offset").put("token_logprobs", tokenLogprobs);
    return o.put("tokens", texts).put("top_logprobs", top);
  }

  static void appendLogprobs(List<TokenLogprob> tokens, JsonArray tokenLogprobs, JsonArray texts,
      JsonArray top) {
    for (TokenLogprob t : tokens) {
      tokenLogprobs.add(t.logprob());
      texts.add(t.token());
      JsonObject alternatives = new JsonObject();
      for (TokenLogprob.Alternative a : t.top()) {
        // several ids may decode to the same text (e.g. partial UTF-8); the likeliest one stays
        if (!alternatives.containsKey(a.token())) {
          alternatives.put(a.token(), a.logprob());
        }
      }
      top.add(alternatives);
    }
  }

  static JsonObject usage(RequestUsage u, boolean debug) {
    JsonObject o = new JsonObject().put("prompt_tokens", u.promptTokens())
        .put("completion_tokens", u.completionTokens()).put("total_tokens", u.totalTokens());
    o.put("extra", debug ? extra(u) : null);
    return o;
  }

  /** {@code usage.extra}: MLC's RequestMetrics plus Tandem's cache and KV-transfer counts. */
  static JsonObject extra(RequestUsage u) {
    JsonObject e = new JsonObject().put("prompt_tokens", u.promptTokens())
        .put("completion_tokens", u.completionTokens()).put("prefill_tokens", u.prefillTokens())
        .put("decode_tokens", u.decodeTokens()).put("jump_forward_tokens", 0);
    double decodeSeconds = Math.max(u.endToEndSeconds() - u.ttftSeconds(), 0);
    if (u.prefillTokens() != 0 && u.ttftSeconds() > 0) {
      e.put("prefill_tokens_per_s", u.prefillTokens() / u.ttftSeconds());
    }
    if (u.decodeTokens() != 0 && decodeSeconds > 0) {
      e.put("decode_tokens_per_s", u.decodeTokens() / decodeSeconds);
    }
    e.put("end_to_end_latency_s", u.endToEndSeconds()).put("ttft_s", u.ttftSeconds());
    e.put("inter_token_latency_s",
        u.completionTokens() == 0 ? 0.0 : u.endToEndSeconds() / u.completionTokens());
    e.put("prefix_matched_length", u.prefixMatchedLength())
        .put("cached_tokens", u.prefixMatchedLength())
        .put("kv_received_tokens", u.kvReceivedTokens()).put("preemptions", u.preemptions());
    JsonArray ids = new JsonArray();
    for (int[] choice : u.outputTokenIds()) {
      JsonArray c = new JsonArray();
      for (int id : choice) {
        c.add(id);
      }
      ids.add(c);
    }
    return e.put("output_token_ids", ids);
  }
}
