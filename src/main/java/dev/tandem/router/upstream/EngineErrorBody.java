package dev.tandem.router.upstream;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.json.Json;

/**
 * Reads an engine's error body in any of the shapes engines send: OpenAI
 * {@code {"error": {...}}}, MLC's {@code {"object": "error", "message": ...}} (also double-encoded
 * as a JSON string, reference §3.1), FastAPI's {@code {"detail": ...}}, or plain text.
 */
public record EngineErrorBody(String message, String type, String code, String param) {

  private static final int MAX_TEXT = 500;

  public static EngineErrorBody parse(Buffer body) {
    String text = body == null ? "" : body.toString().strip();
    Object decoded;
    try {
      decoded = Json.decodeValue(text);
    } catch (DecodeException | IllegalArgumentException e) {
      return plain(text);
    }
    if (decoded instanceof String inner) {
      return parse(Buffer.buffer(inner)); // MLC double-encodes its 400 bodies
    }
    if (decoded instanceof JsonObject json) {
      return fromJson(json, text);
    }
    return plain(text);
  }

  private static EngineErrorBody fromJson(JsonObject json, String text) {
    Object error = json.getValue("error");
    if (error instanceof JsonObject e) {
      return new EngineErrorBody(orText(e.getValue("message"), text), e.getString("type"),
          stringOf(e.getValue("code")), e.getString("param"));
    }
    if (error instanceof String s) {
      return new EngineErrorBody(s, null, null, null);
    }
    if (json.getValue("message") != null) {
      return new EngineErrorBody(orText(json.getValue("message"), text), null, null, null);
    }
    Object detail = json.getValue("detail");
    if (detail instanceof String s) {
      return new EngineErrorBody(s, null, null, null);
    }
    if (detail instanceof JsonArray items && !items.isEmpty()) {
      StringBuilder sb = new StringBuilder();
      for (Object item : items) {
        if (item instanceof JsonObject d) {
          sb.append(sb.length() == 0 ? "" : "; ").append(d.getValue("loc", "")).append(": ")
              .append(d.getString("msg", ""));
        }
      }
      return new EngineErrorBody(sb.length() == 0 ? truncate(text) : sb.toString(), null, null, null);
    }
    return plain(text);
  }

  private static EngineErrorBody plain(String text) {
    return new EngineErrorBody(text.isEmpty() ? "(empty body)" : truncate(text), null, null, null);
  }

  private static String orText(Object v, String text) {
    return v == null ? truncate(text) : String.valueOf(v);
  }

  private static String stringOf(Object v) {
    return v == null ? null : String.valueOf(v);
  }

  private static String truncate(String s) {
    return s.length() <= MAX_TEXT ? s : s.substring(0, MAX_TEXT) + "...";
  }
}
