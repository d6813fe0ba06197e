package dev.tandem.router.dispatch;

import dev.tandem.api.ApiError;

/** A choice was preempted more often than the router resumes it: 503, retry later. */
public final class PreemptedTooOftenException extends ApiError {

  private static final long serialVersionUID = 1L;

  public PreemptedTooOftenException(int choice, int resumes, int retryAfterSeconds) {
    super(503, "service_unavailable", "choice " + choice + " was preempted "
        + (resumes + 1) + " times (resumed " + resumes + " times); the engines are short of KV "
        + "cache room, retry later", null, "preempted", null, retryAfterSeconds);
  }
}
