package dev.tandem.router.dispatch;

import dev.tandem.router.RouterException;

/** A choice was preempted more often than the router resumes it: 503, retry later. */
public final class PreemptedTooOftenException extends RouterException {

  private static final long serialVersionUID = 1L;
  private final int retryAfterSeconds;

  public PreemptedTooOftenException(int choice, int resumes, int retryAfterSeconds) {
    super(503, "service_unavailable", "preempted", null, "choice " + choice + " was preempted "
        + (resumes + 1) + " times (resumed " + resumes + " times); the engines are short of KV "
        + "cache room, retry later");
    this.retryAfterSeconds = retryAfterSeconds;
  }

  @Override
  public int retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
