package dev.tandem.router.dispatch;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Everything delivered so far, per client choice: the text, the token ids behind it (while every
 * chunk carried them), the token count, logprobs, the first finish reason and how often it was
 * resumed. It is the source of resumption (what to continue from, what to skip) and of the
 * aggregated non-streaming answer (MLC overwrites logprobs and drops usage, reference §6 item 3).
 */
final class ChoiceLedger {

  static final class Choice {
    final StringBuilder text = new StringBuilder();
    int[] ids = new int[16];
    int idCount;
    boolean idsComplete = true;
    int tokens;
    boolean tokensKnown = true;
    String finishReason;
    int resumes;
    JsonObject logprobs;

    int[] tokenIds() {
      return Arrays.copyOf(ids, idCount);
    }
  }

  private final List<Choice> choices = new ArrayList<>();

  ChoiceLedger(int n) {
    for (int i = 0; i < n; i++) {
      choices.add(new Choice());
    }
  }

  Choice get(int index) {
    return choices.get(index);
  }

  int size() {
    return choices.size();
  }

  void apply(int index, ChoiceDelta d) {
    Choice c = choices.get(index);
    c.text.append(d.text());
    if (d.tokenIds() != null) {
      for (int id : d.tokenIds()) {
        if (c.idCount == c.ids.length) {
          c.ids = Arrays.copyOf(c.ids, c.ids.length * 2);
        }
        c.ids[c.idCount++] = id;
      }
    } else if (!d.text().isEmpty()) {
      c.idsComplete = false;
    }
    int count = d.tokenCount();
    if (count < 0) {
      c.tokensKnown = false;
    } else {
      c.tokens += count;
    }
    if (d.logprobs() != null) {
      c.logprobs = c.logprobs == null ? emptyLogprobs() : c.logprobs;
      appendLogprobs(c.logprobs, d.logprobs());
    }
    if (c.finishReason == null && d.finishReason() != null) {
      c.finishReason = d.finishReason();
    }
  }

  boolean finished(int index) {
    return choices.get(index).finishReason != null;
  }

  boolean allTokenCountsKnown() {
    return choices.stream().allMatch(c -> c.tokensKnown);
  }

  int totalTokens() {
    return choices.stream().mapToInt(c -> c.tokens).sum();
  }

  private static JsonObject emptyLogprobs() {
    return new JsonObject().put("text_offset", null).put("token_logprobs", new JsonArray())
        .put("tokens", new JsonArray()).put("top_logprobs", new JsonArray());
  }

  /** Concatenates the arrays of {@code more} onto {@code into}; absent arrays stay absent/null. */
  static void appendLogprobs(JsonObject into, JsonObject more) {
    for (String key : List.of("text_offset", "token_logprobs", "tokens", "top_logprobs")) {
      JsonArray add = more.getJsonArray(key);
      if (add == null) {
        continue;
      }
      JsonArray have = into.getJsonArray(key);
      if (have == null) {
        have = new JsonArray();
        into.put(key, have);
      }
      have.addAll(add);
    }
  }
}
