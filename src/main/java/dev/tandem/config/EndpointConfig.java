package dev.tandem.config;

import dev.tandem.bus.EngineRole;

/**
 * One engine endpoint after the router configuration is resolved: where it listens, which devices
 * it gets ({@code peStart .. peStart + numGpus - 1}, the seed's {@code device_id_starts[i]}) and what
 * the router uses it for.
 */
public record EndpointConfig(int id, String host, int port, int numGpus, int peStart,
    EngineRole role) {

  /** Base URL of the engine, as MLC builds it: {@code http://host:port}. */
  public String url() {
    return "http://" + host + ":" + port;
  }

  /** Short human name for logs and error messages: {@code engine 1 (decode, 127.0.0.1:8081)}. */
  public String describe() {
    return "engine " + id + " (" + role.name().toLowerCase(java.util.Locale.ROOT) + ", " + host
        + ":" + port + ")";
  }
}
