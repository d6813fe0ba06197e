package dev.tandem.bench;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.ConnectException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * Collects one response (SSE chunks or a whole JSON body, of completions or chat completions)
 * into a {@link RequestOutcome}: the time of the first chunk with text (a completion chunk's
 * {@code text}, a chat chunk's {@code delta.content}), text chunks, finish reason, the usage
 * record and the first error.
 * Used on one event loop only.
 */
final class ResponseCollector {

  private final PlannedRequest request;
  private final boolean warmup;
  private final long startNanos;
  private long firstTokenNanos;
  private long firstChoiceNanos;
  private int textChunks;
  private int promptTokens = -1;
  private int completionTokens = -1;
  private double engineTtftMillis = Double.NaN;
  private double engineE2eMillis = Double.NaN;
  private String finishReason;
  private String errorKind;
  private String errorMessage;

  ResponseCollector(PlannedRequest request, boolean warmup, long startNanos) {
    this.request = request;
    this.warmup = warmup;
    this.startNanos = startNanos;
  }

  /** True once an error was recorded; later bytes are ignored. */
  boolean finished() {
    return errorKind != null;
  }

  /** One SSE data payload (a CompletionResponse chunk, or an error event). */
  void chunk(String data) {
    if (errorKind != null) {
      return;
    }
    long now = System.nanoTime();
    JsonObject json;
    try {
      json = new JsonObject(data);
    } catch (DecodeException | ClassCastException e) {
      fail("bad_chunk", "not a JSON object: " + abbreviate(data));
      return;
    }
    if (isError(json)) {
      fail("stream_error", errorText(json));
      return;
    }
    JsonArray choices = json.getJsonArray("choices");
    if (choices != null) {
      for (int i = 0; i < choices.size(); i++) {
        JsonObject c = choices.getJsonObject(i);
        if (firstChoiceNanos == 0) {
          firstChoiceNanos = now;
        }
        String text = c.getString("text");
        if (text == null && c.getValue("delta") instanceof JsonObject delta) {
          text = delta.getString("content"); // a chat chunk
        }
        if (text != null && !text.isEmpty()) {
          textChunks++;
          if (firstTokenNanos == 0) {
            firstTokenNanos = now;
          }
        }
        if (c.getString("finish_reason") != null && finishReason == null) {
          finishReason = c.getString("finish_reason");
        }
      }
    }
    readUsage(json);
  }

  RequestOutcome streamEnded(boolean sawDone) {
    if (errorKind == null && !sawDone) {
      fail("stream_cut", "the stream ended without data: [DONE]");
    }
    if (errorKind == null && "preempt".equals(finishReason)) {
      fail("preempt", "finish_reason preempt reached the client");
    }
    // A token may decode to no text yet (part of a UTF-8 character): then the first choice counts.
    long first = firstTokenNanos != 0 ? firstTokenNanos : firstChoiceNanos;
    boolean fromUsage = completionTokens >= 0;
    return outcome(first, fromUsage ? completionTokens : textChunks, fromUsage);
  }

  RequestOutcome wholeBody(Buffer body) {
    JsonObject json;
    try {
      json = body.toJsonObject();
    } catch (DecodeException | ClassCastException e) {
      fail("bad_response", "not a JSON object: " + abbreviate(body.toString()));
      return outcome(0, 0, false);
    }
    if (isError(json)) {
      fail("response_error", errorText(json));
      return outcome(0, 0, false);
    }
    JsonArray choices = json.getJsonArray("choices");
    if (choices != null && !choices.isEmpty()) {
      finishReason = choices.getJsonObject(0).getString("finish_reason");
    }
    readUsage(json);
    if ("preempt".equals(finishReason)) {
      fail("preempt", "finish_reason preempt reached the client");
    }
    boolean fromUsage = completionTokens >= 0;
    int tokens = fromUsage ? completionTokens : "length".equals(finishReason) ? request.maxTokens() : 0;
    return outcome(0, tokens, fromUsage);
  }

  RequestOutcome httpError(int status, String body) {
    fail("http_" + status, abbreviate(body));
    return outcome(0, 0, false);
  }

  RequestOutcome failed(Throwable e) {
    if (errorKind == null) {
      fail(kindOf(e), e.getClass().getSimpleName() + ": " + e.getMessage());
    }
    return outcome(0, 0, false);
  }

  /** The body broke after a 200 head: a cut stream unless it was a timeout. */
  RequestOutcome streamFailed(Throwable e) {
    String kind = kindOf(e);
    if (errorKind == null) {
      fail(kind.equals("timeout") ? kind : "stream_cut", e.getClass().getSimpleName() + ": " + e.getMessage());
    }
    return outcome(0, 0, false);
  }

  static String kindOf(Throwable e) {
    String m = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
    if (e instanceof TimeoutException || e.getClass().getSimpleName().contains("Timeout") || m.contains("timeout")
        || m.contains("timed out")) {
      return "timeout";
    }
    if (e instanceof ConnectException || m.contains("connection refused")) {
      return "connect";
    }
    if (m.contains("closed") || m.contains("reset")) {
      return "connection_closed";
    }
    return "io";
  }

  private void readUsage(JsonObject json) {
    JsonObject usage = json.getValue("usage") instanceof JsonObject u ? u : null;
    if (usage != null) {
      Integer ct = usage.getInteger("completion_tokens");
      Integer pt = usage.getInteger("prompt_tokens");
      if (ct != null) {
        completionTokens = ct;
      }
      if (pt != null) {
        promptTokens = pt;
      }
      // MLC's per-request metrics (engines under --enable-debug): the engine's own clock.
      JsonObject extra = usage.getValue("extra") instanceof JsonObject x ? x : null;
      if (extra != null) {
        if (extra.getValue("ttft_s") instanceof Number t) {
          engineTtftMillis = t.doubleValue() * 1000;
        }
        if (extra.getValue("end_to_end_latency_s") instanceof Number e) {
          engineE2eMillis = e.doubleValue() * 1000;
        }
      }
    }
  }

  private void fail(String kind, String message) {
    if (errorKind == null) {
      errorKind = kind;
      errorMessage = message;
    }
  }

  private RequestOutcome outcome(long firstNanos, int outputTokens, boolean fromUsage) {
    return new RequestOutcome(request.index(), request.className(), warmup, request.maxTokens(), startNanos,
        errorKind == null ? firstNanos : 0, System.nanoTime(), promptTokens, outputTokens, fromUsage,
        errorKind, errorMessage, engineTtftMillis, engineE2eMillis);
  }

  private static boolean isError(JsonObject json) {
    return json.getValue("error") != null || "error".equals(json.getValue("object"));
  }

  /** OpenAI {"error":{"message"}}, MLC {"object":"error","message"} or a plain string. */
  private static String errorText(JsonObject json) {
    Object e = json.getValue("error");
    if (e instanceof JsonObject o && o.getString("message") != null) {
      return abbreviate(o.getString("message"));
    }
    if (json.getString("message") != null) {
      return abbreviate(json.getString("message"));
    }
    return abbreviate(json.encode());
  }

  private static String abbreviate(String s) {
    String t = s == null ? "" : s.strip();
    return t.length() <= 300 ? t : t.substring(0, 300) + "...";
  }
}
