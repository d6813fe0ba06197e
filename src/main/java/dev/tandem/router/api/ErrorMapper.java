package dev.tandem.router.api;

import dev.tandem.api.ApiError;
import dev.tandem.router.RouterException;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where any failure becomes what a client sees: an HTTP status, an OpenAI error
 * body {@code {"error": {"message", "type", "param", "code"}}} and, for "try later" answers, a
 * {@code Retry-After} value. Typed failures carry their own status (an engine's 4xx stays that
 * 4xx with the engine's message); anything untyped is a router bug and a 500.
 */
public final class ErrorMapper {

  private static final Logger LOG = LoggerFactory.getLogger(ErrorMapper.class);

  /** A mapped failure. {@code retryAfterSeconds} is 0 when no Retry-After applies. */
  public record Mapped(int status, JsonObject body, int retryAfterSeconds) {

    public JsonObject error() {
      return body.getJsonObject("error");
    }
  }

  private ErrorMapper() {}

  public static Mapped map(Throwable failure) {
    if (failure instanceof RouterException e) {
      return new Mapped(e.status(), body(e.getMessage(), e.type(), e.param(), e.code()),
          e.retryAfterSeconds());
    }
    if (failure instanceof ApiError e) { // the shared validation's failures (400s)
      return new Mapped(e.status(), body(e.getMessage(), e.type(), e.param(), e.code()), 0);
    }
    LOG.error("unexpected failure", failure);
    return new Mapped(500, body("internal router error: " + failure, "internal_error", null,
        "internal_error"), 0);
  }

  /** The status {@link #map} would give, without logging. */
  public static int statusOf(Throwable failure) {
    if (failure instanceof RouterException e) {
      return e.status();
    }
    return failure instanceof ApiError e ? e.status() : 500;
  }

  public static JsonObject body(String message, String type, String param, String code) {
    return new JsonObject().put("error", new JsonObject().put("message", message).put("type", type)
        .put("param", param).put("code", code));
  }
}
