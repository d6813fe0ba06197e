package dev.tandem.supervisor;

import dev.tandem.api.FleetSecret;
import dev.tandem.bus.EngineStatus;
import dev.tandem.config.ConfigException;
import dev.tandem.config.RouterConfig;
import dev.tandem.fleet.EngineSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The fleet's secret ({@code --fleet-secret-file}, else a random one) and the one rule of who
 * gets it: every builtin (or simulated) engine whose endpoint listens beyond loopback, in its
 * environment. MLC engines check no key: their ports belong on a private network
 * (docs/cluster.md). The fleet's routers ask the supervisor for it on the bus.
 */
final class FleetSecrets {
  private final String secret;

  private FleetSecrets(String secret) {
    this.secret = secret;
  }

  /** Reads {@code --fleet-secret-file} or makes a random secret. Blocking: reads a file. */
  static FleetSecrets load(RouterConfig config) {
    String file = config.get(RouterConfig.FLEET_SECRET_FILE);
    if (file == null) {
      return new FleetSecrets(FleetSecret.random());
    }
    try {
      String first = Files.readAllLines(Path.of(file)).stream().findFirst().orElse("").strip();
      if (first.length() < 16) {
        throw new ConfigException("--fleet-secret-file " + file + ": its first line must hold a"
            + " secret of at least 16 characters");
      }
      return new FleetSecrets(first);
    } catch (IOException e) {
      throw new ConfigException("--fleet-secret-file " + file + " cannot be read: " + e);
    }
  }

  String secret() {
    return secret;
  }

  /** {@code spec} with the secret in its environment where its engine needs it. Blocking: DNS. */
  EngineSpec apply(EngineSpec spec) {
    if (EngineStatus.MLC.equals(spec.kind()) || !FleetSecret.beyondLoopback(spec.endpoint().host())) {
      return spec;
    }
    return spec.withCommand(spec.command().withEnv(Map.of(FleetSecret.ENV, secret)));
  }
}
