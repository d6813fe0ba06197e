package dev.tandem.router.api;

import dev.tandem.router.RouterException;

/** The client's request is malformed or out of range: 400, naming the field and what is allowed. */
public final class InvalidRequestException extends RouterException {

  private static final long serialVersionUID = 1L;

  public InvalidRequestException(String param, String code, String message) {
    super(400, "invalid_request_error", code, param, message);
  }

  public InvalidRequestException(int status, String param, String code, String message) {
    super(status, "invalid_request_error", code, param, message);
  }
}
