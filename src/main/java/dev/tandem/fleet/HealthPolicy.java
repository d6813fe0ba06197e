package dev.tandem.fleet;

import static dev.tandem.config.RouterConfig.HEALTH_FAILURES;
import static dev.tandem.config.RouterConfig.HEALTH_INTERVAL;
import static dev.tandem.config.RouterConfig.HEALTH_TIMEOUT;

import dev.tandem.config.RouterConfig;
import java.time.Duration;

/**
 * How a running engine is watched: one probe every {@code interval} after the previous one ended,
 * each with {@code timeout}; {@code failures} consecutive failed probes make it UNHEALTHY.
 */
public record HealthPolicy(Duration interval, Duration timeout, int failures) {

  public static HealthPolicy of(RouterConfig config) {
    return new HealthPolicy(config.get(HEALTH_INTERVAL), config.get(HEALTH_TIMEOUT),
        config.get(HEALTH_FAILURES));
  }
}
