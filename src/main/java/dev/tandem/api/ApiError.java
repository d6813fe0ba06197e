package dev.tandem.api;

import io.vertx.core.json.JsonObject;

/**
 * A request failure that carries its HTTP status and renders as the OpenAI error body
 * {@code {"error":{"message","type","param","code"}}}: the one typed failure of router and engine.
 * Thrown by validation, by the engine for conditions the client caused or may retry, and (as
 * subclasses) by the router for engine failures; {@link ErrorResponses} turns any failure into a
 * response, in one place.
 */
public class ApiError extends RuntimeException {
  public static final String INVALID_REQUEST = "invalid_request_error";
  public static final String SERVER_ERROR = "server_error";

  private final int status;
  private final String type;
  private final String param;
  private final String code;
  private final int retryAfterSeconds;

  public ApiError(int status, String type, String message, String param, String code) {
    this(status, type, message, param, code, null, 0);
  }

  /**
   * @param cause what went wrong underneath, may be null
   * @param retryAfterSeconds sent as {@code Retry-After} when positive ("try again later" answers)
   */
  protected ApiError(int status, String type, String message, String param, String code,
      Throwable cause, int retryAfterSeconds) {
    super(message, cause);
    this.status = status;
    this.type = type;
    this.param = param;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** 400: the request is malformed or asks for something this server cannot do. */
  public static ApiError invalid(String param, String message) {
    return new ApiError(400, INVALID_REQUEST, message, param, null);
  }

  /** 400 with a machine-readable code. */
  public static ApiError invalid(String param, String code, String message) {
    return new ApiError(400, INVALID_REQUEST, message, param, code);
  }

  /** 404: the named thing (e.g. a parked request) does not exist. */
  public static ApiError notFound(String param, String message) {
    return new ApiError(404, INVALID_REQUEST, message, param, "not_found");
  }

  /** 409: the request conflicts with one in flight (e.g. a duplicate request id). */
  public static ApiError conflict(String param, String message) {
    return new ApiError(409, INVALID_REQUEST, message, param, "conflict");
  }

  /** 503: the server cannot serve this now or in this configuration; the message says why. */
  public static ApiError unavailable(String code, String message) {
    return new ApiError(503, SERVER_ERROR, message, null, code);
  }

  /** 500: a failure on our side. */
  public static ApiError internal(String message) {
    return new ApiError(500, SERVER_ERROR, message, null, null);
  }

  public int status() {
    return status;
  }

  public String type() {
    return type;
  }

  public String param() {
    return param;
  }

  /** Machine-readable code, may be null. */
  public String code() {
    return code;
  }

  /** Seconds a client should wait before retrying (sent as {@code Retry-After}), or 0 for none. */
  public int retryAfterSeconds() {
    return retryAfterSeconds;
  }

  public JsonObject toJson() {
    return body(getMessage(), type, param, code);
  }

  /** The OpenAI error body; nulls are kept so clients see every field. */
  public static JsonObject body(String message, String type, String param, String code) {
    JsonObject error = new JsonObject().put("message", message).put("type", type);
    error.put("param", param).put("code", code);
    return new JsonObject().put("error", error);
  }

  /** Any failure as an ApiError: itself if it is one, else a 500 with its message. */
  public static ApiError from(Throwable failure) {
    Throwable t = failure;
    while (t != null) {
      if (t instanceof ApiError e) {
        return e;
      }
      t = t.getCause();
    }
    String message = failure.getMessage() != null ? failure.getMessage() : failure.toString();
    return internal(message);
  }
}
