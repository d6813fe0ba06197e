package dev.tandem.engine.server;

import dev.tandem.engine.model.CoreBudget;
import java.time.Duration;

/**
 * How the engine's HTTP server listens and answers.
 *
 * @param modelId the model as given to {@code serve} (reported by /v1/models)
 * @param debug --enable-debug: {@code usage.extra} and the /debug routes
 * @param clientStallLimit how long a streaming client may read nothing while its request is held
 *     for it before its stream is cut and the request freed
 * @param cores the cores the model computes on (shown in /metrics)
 * @param fleetSecret what every caller must send in {@link dev.tandem.api.FleetSecret#HEADER},
 *     or null when anyone who reaches the port may call (the engine listens on loopback)
 */
public record EngineServerConfig(String host, int port, String modelId, boolean debug,
    Duration clientStallLimit, CoreBudget cores, String fleetSecret) {
  public static final Duration DEFAULT_CLIENT_STALL_LIMIT = Duration.ofSeconds(120);

  public EngineServerConfig {
    if (clientStallLimit.isNegative() || clientStallLimit.isZero()) {
      throw new IllegalArgumentException("clientStallLimit must be positive, got " + clientStallLimit);
    }
  }

  public EngineServerConfig(String host, int port, String modelId, boolean debug) {
    this(host, port, modelId, debug, DEFAULT_CLIENT_STALL_LIMIT, CoreBudget.all(), null);
  }

  public EngineServerConfig(String host, int port, String modelId, boolean debug,
      Duration clientStallLimit, CoreBudget cores) {
    this(host, port, modelId, debug, clientStallLimit, cores, null);
  }
}
