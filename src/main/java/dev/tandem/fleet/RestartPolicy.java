package dev.tandem.fleet;

import static dev.tandem.config.RouterConfig.RESTART_BACKOFF;
import static dev.tandem.config.RouterConfig.RESTART_BACKOFF_MAX;
import static dev.tandem.config.RouterConfig.RESTART_LIMIT;

import dev.tandem.config.RouterConfig;
import dev.tandem.retry.Backoff;
import java.time.Duration;

/**
 * When to restart a dead or unresponsive engine: after {@code backoff}, doubling with every
 * consecutive restart up to {@code maxBackoff}; after {@code limit} consecutive restarts the engine
 * is given up (FAILED). Restarts count as consecutive until the engine has stayed READY for
 * {@code maxBackoff}, so a crash loop backs off while a rare crash restarts quickly.
 */
public record RestartPolicy(Duration backoff, Duration maxBackoff, int limit) {

  public static RestartPolicy of(RouterConfig config) {
    return new RestartPolicy(config.get(RESTART_BACKOFF), config.get(RESTART_BACKOFF_MAX),
        config.get(RESTART_LIMIT));
  }

  /** Delay before consecutive restart number {@code attempt} (1 for the first). */
  public Duration delay(int attempt) {
    return new Backoff(backoff, maxBackoff).delay(attempt);
  }

  /** Whether restart number {@code attempt} is still allowed. */
  public boolean allows(int attempt) {
    return attempt <= limit;
  }

  /** Whether a READY period this long ends a run of consecutive restarts. */
  public boolean isStable(Duration readyFor) {
    return readyFor.compareTo(maxBackoff) >= 0;
  }
}
