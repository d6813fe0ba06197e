package dev.tandem.router.upstream;

import dev.tandem.api.ApiError;

/**
 * A failed call to an engine. {@link Kind} says what happened and so whether another engine may
 * be tried: an engine's 4xx is the request's fault and is kept (status and message) for the
 * client; everything else is the engine's or the network's fault and is retriable elsewhere.
 */
public final class UpstreamException extends ApiError {

  private static final long serialVersionUID = 1L;

  public enum Kind {
    /** Could not connect or send (refused, reset before a response). */
    UNREACHABLE,
    /** The connection broke or the stream ended before the answer was complete. */
    BROKEN,
    /** A stage took longer than its configured limit. */
    TIMEOUT,
    /** The engine answered 5xx, or sent an error event mid-stream. */
    ENGINE_ERROR,
    /** The engine answered 503: it has no room now (e.g. KV cache full); worth waiting for. */
    BUSY,
    /** The engine answered 4xx: it rejected the request. */
    REJECTED,
    /** The engine answered something that does not follow the protocol. */
    PROTOCOL,
    /**
     * A replay (after a preempt or a failover) generated something else than what the client
     * already has: the engines are not deterministic for this request. Never retried: the client
     * gets an error rather than text that does not continue its own.
     */
    DIVERGED
  }

  private final Kind kind;
  private final int engineId;

  private UpstreamException(Kind kind, int engineId, int status, String type, String code,
      String param, String message, Throwable cause) {
    super(status, type, message, param, code, cause, kind == Kind.BUSY ? 1 : 0);
    this.kind = kind;
    this.engineId = engineId;
  }

  public static UpstreamException unreachable(int engineId, String what, Throwable cause) {
    return new UpstreamException(Kind.UNREACHABLE, engineId, 502, "upstream_error",
        "engine_unreachable", null, "engine " + engineId + " unreachable during " + what + ": "
            + describe(cause), cause);
  }

  public static UpstreamException broken(int engineId, String what, String detail) {
    return new UpstreamException(Kind.BROKEN, engineId, 502, "upstream_error", "engine_stream_broken",
        null, "engine " + engineId + " broke off " + what + ": " + detail, null);
  }

  public static UpstreamException timeout(int engineId, String stage, long millis) {
    return new UpstreamException(Kind.TIMEOUT, engineId, 504, "upstream_timeout", "engine_timeout",
        null, "engine " + engineId + " did not finish " + stage + " within " + millis + " ms", null);
  }

  public static UpstreamException engineError(int engineId, String what, int status, String message) {
    return new UpstreamException(Kind.ENGINE_ERROR, engineId, 502, "upstream_error", "engine_error",
        null, "engine " + engineId + " failed " + what + " (HTTP " + status + "): " + message, null);
  }

  /** The engine is too full to take the request now; another try later may succeed. */
  public static UpstreamException busy(int engineId, String what, String message) {
    return new UpstreamException(Kind.BUSY, engineId, 503, "service_unavailable", "engine_busy",
        null, "engine " + engineId + " is busy (" + what + "): " + message, null);
  }

  /** The engine rejected the request: the client gets the engine's status and message. */
  public static UpstreamException rejected(int engineId, int status, String type, String code,
      String param, String message) {
    return new UpstreamException(Kind.REJECTED, engineId, status,
        type == null ? "invalid_request_error" : type, code, param, message, null);
  }

  public static UpstreamException protocol(int engineId, String what, String detail) {
    return new UpstreamException(Kind.PROTOCOL, engineId, 502, "upstream_error",
        "engine_protocol_error", null, "engine " + engineId + " answered " + what
            + " outside the protocol: " + detail, null);
  }

  /**
   * A replayed choice differs from what was delivered: {@code what} names the first difference.
   */
  public static UpstreamException diverged(int engineId, int clientChoice, String what) {
    return new UpstreamException(Kind.DIVERGED, engineId, 502, "upstream_error", "replay_mismatch",
        null, "engine " + engineId + " replayed choice " + clientChoice + " differently from what"
            + " was already sent (" + what + "); the request cannot continue without changing"
            + " delivered text", null);
  }

  public Kind kind() {
    return kind;
  }

  public int engineId() {
    return engineId;
  }

  /** Another engine may succeed where this one failed. */
  public boolean retriable() {
    return kind != Kind.REJECTED && kind != Kind.DIVERGED;
  }

  private static String describe(Throwable t) {
    if (t == null) {
      return "unknown error";
    }
    String m = t.getMessage();
    return m == null ? t.getClass().getSimpleName() : m;
  }
}
