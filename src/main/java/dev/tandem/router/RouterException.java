package dev.tandem.router;

/**
 * A failure that knows how it looks to an OpenAI client: HTTP status and the fields of the error
 * body ({@code type}, {@code code}, {@code param}). Subclasses name where it came from; the one
 * place that turns any failure into a response is {@code api.ErrorMapper}.
 */
public class RouterException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int status;
  private final String type;
  private final String code;
  private final String param;

  public RouterException(int status, String type, String code, String param, String message,
      Throwable cause) {
    super(message, cause);
    this.status = status;
    this.type = type;
    this.code = code;
    this.param = param;
  }

  public RouterException(int status, String type, String code, String param, String message) {
    this(status, type, code, param, message, null);
  }

  public int status() {
    return status;
  }

  public String type() {
    return type;
  }

  /** Machine-readable code, may be null. */
  public String code() {
    return code;
  }

  /** The request field at fault, may be null. */
  public String param() {
    return param;
  }

  /** Seconds a client should wait before retrying (sent as {@code Retry-After}), or 0 for none. */
  public int retryAfterSeconds() {
    return 0;
  }
}
