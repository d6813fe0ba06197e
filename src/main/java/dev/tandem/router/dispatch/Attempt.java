package dev.tandem.router.dispatch;

import dev.tandem.router.upstream.Cancellation;
import java.util.Set;

/**
 * One try at generating an {@link AttemptSpec} on the fleet, handed to a {@link Dispatcher}.
 *
 * @param engineRequestId the {@code user} field engines key the request by: unique per attempt,
 *     so a retried or resumed attempt never collides with a request an engine is still aborting
 * @param excluded engines that already failed this request
 */
public record Attempt(CompletionJob job, AttemptSpec spec, String engineRequestId,
    Set<Integer> excluded, RelayTarget target, AttemptResult result) {

  public Cancellation cancellation() {
    return job.cancellation();
  }
}
