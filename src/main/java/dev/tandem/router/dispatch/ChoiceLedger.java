package dev.tandem.router.dispatch;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Everything delivered so far, per client choice: the text, the token ids behind it (while they
 * are known exactly), the token count, logprobs, the first finish reason and how often it was
 * resumed. It is the source of resumption (what to continue from, what to skip) and of the
 * aggregated non-streaming answer (MLC overwrites logprobs and drops usage, reference §6 item 3).
 */
final class ChoiceLedger {

  static final class Choice {
    final StringBuilder text = new StringBuilder();
    int[] ids = new int[0];
    /** {@link #ids} are exactly the delivered tokens (no replay, no unknown chunk). */
    boolean idsComplete = true;
    int tokens;
    boolean tokensKnown = true;
    int logprobEntries;
    String finishReason;
    int resumes;
    /** Times this choice moved to another engine after its engine failed mid-answer. */
    int failovers;
    JsonObject logprobs;
    /** The last attempt was cut by a preempt and its delivered tokens are still to be matched. */
    AttemptResult.ChoiceOutcome unresolved;

    int[] tokenIds() {
      return ids.clone();
    }

    void addIds(int[] more) {
      int old = ids.length;
      ids = Arrays.copyOf(ids, old + more.length);
      System.arraycopy(more, 0, ids, old, more.length);
      tokens += more.length;
    }

    void idsUnknown() {
      idsComplete = false;
      tokensKnown = false;
    }
  }

  private final List<Choice> choices;
  /**
   * The request has stop strings: an engine may then have named tokens whose text it still held
   * back (a possible start of a stop string), so chunk ids of an unfinished choice are matched
   * against the delivered text before a continuation trusts them.
   */
  private final boolean stopStrings;

  ChoiceLedger(int n) {
    this(n, false);
  }

  ChoiceLedger(int n, boolean stopStrings) {
    this.stopStrings = stopStrings;
    this.choices = new ArrayList<>(n);
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
    c.logprobEntries += d.logprobCount();
    if (d.logprobs() != null) {
      c.logprobs = c.logprobs == null ? emptyLogprobs() : c.logprobs;
      appendLogprobs(c.logprobs, d.logprobs());
    }
    if (c.finishReason == null && d.finishReason() != null) {
      c.finishReason = d.finishReason();
    }
  }

  /**
   * Books what an attempt delivered for one choice. A replay regenerates from the start, so its
   * ids do not line up with what was delivered; it counts tokens only, from the engine's record.
   */
  void record(AttemptResult.ChoiceOutcome o, boolean replay) {
    Choice c = choices.get(o.clientIndex());
    if (replay) {
      c.idsComplete = false;
      c.unresolved = null;
      if (o.finished()) {
        // a finished replay generated the whole choice from its start
        c.tokensKnown = o.outputIds() != null;
        c.tokens = o.outputIds() == null ? 0 : o.outputIds().length;
      }
      return;
    }
    if (o.chunkIds() != null && stopStrings && !o.finished()) {
      c.unresolved = new AttemptResult.ChoiceOutcome(o.clientIndex(), o.text(), null,
          o.chunkIds(), o.promptTail(), false); // matched against the text before resuming
    } else if (o.chunkIds() != null) {
      c.addIds(o.chunkIds());
    } else if (o.finished() && o.outputIds() != null) {
      c.addIds(o.outputIds()); // a finished choice delivered every token it generated
    } else if (o.outputIds() != null) {
      c.unresolved = o; // some trailing tokens may have been held back: matched before resuming
    } else {
      c.idsUnknown();
    }
  }

  boolean finished(int index) {
    return choices.get(index).finishReason != null;
  }

  boolean allTokenCountsKnown() {
    for (int i = 0, n = choices.size(); i < n; i++) { // once per request: no stream pipeline
      Choice c = choices.get(i);
      if (!c.tokensKnown || c.unresolved != null) {
        return false;
      }
    }
    return true;
  }

  int totalTokens() {
    int total = 0;
    for (int i = 0, n = choices.size(); i < n; i++) {
      total += choices.get(i).tokens;
    }
    return total;
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
