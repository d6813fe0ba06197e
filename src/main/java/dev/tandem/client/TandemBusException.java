package dev.tandem.client;

import io.vertx.core.json.JsonObject;

/**
 * A bus completion that failed: the HTTP status the same request would have had over HTTP and
 * the OpenAI error body ({@code {"error": {"message", "type", "param", "code"}}}).
 */
public final class TandemBusException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final transient JsonObject body;

  public TandemBusException(int status, JsonObject body) {
    super(status + " " + message(body));
    this.status = status;
    this.body = body;
  }

  /** The HTTP status (400, 401, 429, 503, ...). */
  public int status() {
    return status;
  }

  /** The OpenAI error body. */
  public JsonObject body() {
    return body.copy();
  }

  /** The error's {@code code} ({@code invalid_request}, ...), or null. */
  public String code() {
    JsonObject error = body.getJsonObject("error");
    return error == null ? null : error.getString("code");
  }

  static TandemBusException of(int status, String code, String message) {
    return new TandemBusException(status, new JsonObject().put("error", new JsonObject()
        .put("message", message).put("type", "tandem_bus_error").putNull("param").put("code", code)));
  }

  private static String message(JsonObject body) {
    JsonObject error = body == null ? null : body.getJsonObject("error");
    return error == null ? String.valueOf(body) : error.getString("message", "");
  }
}
