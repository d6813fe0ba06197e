package dev.tandem.router.upstream;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One engine SSE chunk, read straight from the event's bytes ({@link ChunkScanner} for the shape
 * engines send per token, Jackson's streaming parser for the rest): only what the router uses
 * (per choice: index, text, finish reason, token ids, logprobs; the usage record) and nothing
 * else is materialised. The router relays every chunk of every stream, so
 * this replaces a JsonObject tree per chunk (reference §3.4 for the shape).
 *
 * @param choices the chunk's choices (empty for a usage-only chunk)
 * @param completionTokens {@code usage.completion_tokens}, or null
 * @param usageExtra {@code usage.extra}, or null
 * @param error the whole chunk when it is an error event ({@code {"error": ...}}), else null
 */
public record EngineChunk(List<Choice> choices, Integer completionTokens, UsageExtra usageExtra,
    Buffer error) {

  /**
   * @param tokenIds the chunk's {@code token_ids}, or null when the engine sent none
   * @param logprobs the chunk's logprobs object, or null
   */
  public record Choice(int index, String text, String finishReason, int[] tokenIds,
      JsonObject logprobs) {}

  private static final JsonFactory JSON = JsonFactory.builder().build();

  /**
   * Parses one event's data: the common shape by {@link ChunkScanner}, anything else (and anything
   * malformed, so that the error says what Jackson says) by Jackson.
   *
   * @throws IllegalArgumentException when it is not a JSON object of the expected shape
   */
  public static EngineChunk parse(byte[] bytes, int offset, int length) {
    EngineChunk fast = ChunkScanner.scan(bytes, offset, length);
    return fast != null ? fast : jackson(bytes, offset, length);
  }

  /** {@link #parse} by Jackson's streaming parser alone. */
  static EngineChunk jackson(byte[] bytes, int offset, int length) {
    try (JsonParser p = JSON.createParser(bytes, offset, length)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IllegalArgumentException("not a JSON object");
      }
      List<Choice> choices = List.of();
      JsonObject usage = null;
      boolean error = false;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken t = p.nextToken();
        switch (field) {
          case "choices" -> choices = t == JsonToken.VALUE_NULL ? List.of() : choices(p, t);
          case "usage" -> {
            if (t == JsonToken.START_OBJECT) {
              usage = object(p);
            } else if (t != JsonToken.VALUE_NULL) {
              throw new IllegalArgumentException("usage is not an object");
            }
          }
          case "error" -> {
            error |= t != JsonToken.VALUE_NULL;
            p.skipChildren();
          }
          default -> p.skipChildren();
        }
      }
      if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
        throw new IllegalArgumentException("not one JSON object");
      }
      return of(choices, usage, error ? Buffer.buffer().appendBytes(bytes, offset, length) : null);
    } catch (IOException e) {
      throw new IllegalArgumentException("invalid JSON: " + e.getMessage(), e);
    }
  }

  /** A chunk with {@code usage} (null for none) read as the router reads it. */
  static EngineChunk of(List<Choice> choices, JsonObject usage, Buffer error) {
    Integer completionTokens = null;
    UsageExtra extra = null;
    if (usage != null) {
      if (usage.getValue("completion_tokens") instanceof Number n) {
        completionTokens = n.intValue();
      }
      extra = usage.getValue("extra") instanceof JsonObject x ? UsageExtra.of(x) : null;
    }
    return new EngineChunk(choices, completionTokens, extra, error);
  }

  private static List<Choice> choices(JsonParser p, JsonToken t) throws IOException {
    if (t != JsonToken.START_ARRAY) {
      throw new IllegalArgumentException("choices is not an array");
    }
    List<Choice> out = new ArrayList<>(1);
    while (p.nextToken() != JsonToken.END_ARRAY) {
      if (p.currentToken() != JsonToken.START_OBJECT) {
        throw new IllegalArgumentException("a choice is not an object");
      }
      out.add(choice(p));
    }
    return out;
  }

  private static Choice choice(JsonParser p) throws IOException {
    int index = 0;
    String text = "";
    String finish = null;
    int[] ids = null;
    JsonObject logprobs = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken t = p.nextToken();
      switch (field) {
        case "index" -> {
          if (t != JsonToken.VALUE_NUMBER_INT) {
            throw new IllegalArgumentException("choice index is not an integer");
          }
          index = p.getIntValue();
        }
        case "text" -> text = t == JsonToken.VALUE_NULL ? "" : string(p, t, "text");
        case "finish_reason" -> finish = t == JsonToken.VALUE_NULL ? null : string(p, t, "finish_reason");
        case "token_ids" -> ids = t == JsonToken.VALUE_NULL ? null : ints(p, t);
        case "logprobs" -> {
          if (t == JsonToken.START_OBJECT) {
            logprobs = object(p);
          } else if (t != JsonToken.VALUE_NULL) {
            throw new IllegalArgumentException("logprobs is not an object");
          }
        }
        default -> p.skipChildren();
      }
    }
    return new Choice(index, text, finish, ids, logprobs);
  }

  private static String string(JsonParser p, JsonToken t, String field) throws IOException {
    if (t != JsonToken.VALUE_STRING) {
      throw new IllegalArgumentException(field + " is not a string");
    }
    return p.getText();
  }

  private static int[] ints(JsonParser p, JsonToken t) throws IOException {
    if (t != JsonToken.START_ARRAY) {
      throw new IllegalArgumentException("token_ids is not an array");
    }
    int[] out = new int[8];
    int n = 0;
    while (p.nextToken() != JsonToken.END_ARRAY) {
      if (p.currentToken() != JsonToken.VALUE_NUMBER_INT) {
        throw new IllegalArgumentException("token_ids holds a non-integer");
      }
      if (n == out.length) {
        out = Arrays.copyOf(out, n * 2);
      }
      out[n++] = p.getIntValue();
    }
    return Arrays.copyOf(out, n);
  }

  /** The object whose START_OBJECT is the current token, as a JsonObject (Vert.x's value types). */
  private static JsonObject object(JsonParser p) throws IOException {
    JsonObject o = new JsonObject();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      o.put(field, value(p, p.nextToken()));
    }
    return o;
  }

  private static Object value(JsonParser p, JsonToken t) throws IOException {
    switch (t) {
      case START_OBJECT:
        return object(p);
      case START_ARRAY: {
        JsonArray a = new JsonArray();
        for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
          a.add(value(p, e));
        }
        return a;
      }
      case VALUE_STRING:
        return p.getText();
      case VALUE_NUMBER_INT:
        return p.getNumberValue();
      case VALUE_NUMBER_FLOAT:
        return p.getDoubleValue();
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case VALUE_NULL:
        return null;
      default:
        throw new IllegalArgumentException("unexpected JSON token " + t);
    }
  }
}
