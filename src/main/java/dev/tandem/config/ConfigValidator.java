package dev.tandem.config;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a {@link RouterConfig} before anything starts. Each check throws a
 * {@link ConfigException} with a one-line message; the command line exits with code 2.
 * {@link #validate} is pure; {@link #checkEnvironment} looks at the file system and binds sockets,
 * so run it off event loops.
 */
public final class ConfigValidator {

  private ConfigValidator() {}

  /** Both checks, pure ones first. */
  public static void validateAll(RouterConfig config) {
    validate(config);
    checkEnvironment(config);
  }

  /** Checks that need nothing but the configuration itself. */
  public static void validate(RouterConfig config) {
    if (config.getModel() == null || config.getModel().isBlank()) {
      throw new ConfigException("a model folder is required (tandem router MODEL, or \"model\" in"
          + " the JSON configuration)");
    }
    checkLengths(config);
    checkPorts(config);
    for (int gpus : config.getEndpointNumGpus()) {
      if (gpus < 1) {
        throw new ConfigException("--endpoint-num-gpus values must be at least 1, not " + gpus);
      }
    }
    double f = config.getPdBalanceFactor();
    if (!(f >= 0.0 && f < 1.0)) {
      throw new ConfigException("--pd-balance-factor must be in [0, 1), not " + f
          + " (it is the fraction of the prompt's tail prefilled on the decode engine)");
    }
    try {
      config.routerOptions().validate();
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage() + " (--policy, --cache-threshold, --balance-abs,"
          + " --balance-rel, --pd-policy)");
    }
    List<EndpointConfig> endpoints = config.endpoints();
    if (config.getRouterMode() == RouterMode.DISAGG) {
      checkDisaggTopology(endpoints);
    }
    positive("--startup-timeout", config.getStartupTimeout());
    positive("--health-interval", config.getHealthInterval());
    positive("--health-timeout", config.getHealthTimeout());
    positive("--stop-grace", config.getStopGrace());
    positive("restartBackoffMs", config.getRestartBackoff());
    if (config.getLoadReportInterval().isNegative()) {
      throw new ConfigException("loadReportIntervalMs must be 0 (off) or positive, not "
          + config.getLoadReportInterval().toMillis() + " ms");
    }
    if (config.getRestartBackoffMax().compareTo(config.getRestartBackoff()) < 0) {
      throw new ConfigException("restartBackoffMaxMs must not be below restartBackoffMs");
    }
    if (config.getHealthFailures() < 1) {
      throw new ConfigException("healthFailures must be at least 1, not " + config.getHealthFailures());
    }
    if (config.getRestartLimit() < 0) {
      throw new ConfigException("restartLimit must be 0 or more, not " + config.getRestartLimit());
    }
  }

  /** The model folder and its tokenizer exist; every port is free to listen on. */
  public static void checkEnvironment(RouterConfig config) {
    Path model = Path.of(config.getModel());
    if (!Files.isDirectory(model)) {
      throw new ConfigException("model folder " + model.toAbsolutePath() + " does not exist"
          + " (make one with: tandem make-model " + model + " --preset tiny)");
    }
    if (!Files.isRegularFile(model.resolve("tokenizer.json"))) {
      throw new ConfigException("model folder " + model.toAbsolutePath() + " has no tokenizer.json"
          + " (the router tokenizes prompts with it)");
    }
    checkFree("the router", config.getRouterHost(), config.getRouterPort());
    for (EndpointConfig endpoint : config.endpoints()) {
      checkFree("endpoint " + endpoint.id(), endpoint.host(), endpoint.port());
    }
  }

  private static void checkLengths(RouterConfig config) {
    int hosts = config.getEndpointHosts().size();
    int ports = config.getEndpointPorts().size();
    int gpus = config.getEndpointNumGpus().size();
    int roles = config.getEndpointRoles().size();
    if (ports == 0) {
      throw new ConfigException("--endpoint-ports needs at least one port");
    }
    boolean hostsFit = hosts == 1 || hosts == ports;
    boolean gpusFit = gpus == 1 || gpus == ports;
    if (!hostsFit || !gpusFit) {
      throw new ConfigException("--endpoint-hosts (" + hosts + " values), --endpoint-ports (" + ports
          + ") and --endpoint-num-gpus (" + gpus + ") must have the same length"
          + " (a single host or GPU count applies to every port)");
    }
    if (roles != 0 && roles != 1 && roles != ports) {
      throw new ConfigException("--endpoint-roles has " + roles + " values but --endpoint-ports has "
          + ports + "; give one role per port");
    }
  }

  private static void checkPorts(RouterConfig config) {
    Map<Integer, String> owners = new HashMap<>();
    checkPort("--router-port", config.getRouterPort());
    owners.put(config.getRouterPort(), "the router");
    List<Integer> ports = config.getEndpointPorts();
    for (int i = 0; i < ports.size(); i++) {
      int port = ports.get(i);
      checkPort("--endpoint-ports", port);
      String owner = "endpoint " + i;
      String previous = owners.putIfAbsent(port, owner);
      if (previous != null) {
        throw new ConfigException("port " + port + " is given twice (" + previous + " and " + owner
            + "); every engine and the router need their own port");
      }
    }
  }

  private static void checkPort(String flag, int port) {
    if (port < 1 || port > 65535) {
      throw new ConfigException(flag + " values must be between 1 and 65535, not " + port);
    }
  }

  private static void checkDisaggTopology(List<EndpointConfig> endpoints) {
    if (endpoints.size() < 2) {
      throw new ConfigException("disagg mode needs at least two endpoints (a prefill and a decode"
          + " engine) but has " + endpoints.size() + "; add --endpoint-ports or use --router-mode"
          + " round-robin");
    }
    for (EndpointConfig p : endpoints) {
      for (EndpointConfig d : endpoints) {
        if (p.id() != d.id() && p.role().canPrefill() && d.role().canDecode()) {
          return;
        }
      }
    }
    throw new ConfigException("disagg mode needs one endpoint that can prefill and another that can"
        + " decode, but the roles are " + endpoints.stream().map(e -> e.role().name()
            .toLowerCase(java.util.Locale.ROOT)).toList() + "; see --endpoint-roles");
  }

  private static void positive(String name, Duration value) {
    if (value.isZero() || value.isNegative()) {
      throw new ConfigException(name + " must be positive, not " + value.toMillis() + " ms");
    }
  }

  private static void checkFree(String owner, String host, int port) {
    try (ServerSocket socket = new ServerSocket()) {
      // Same reuse setting as the servers that will bind it, so a TIME_WAIT leftover is no error.
      socket.setReuseAddress(true);
      InetSocketAddress address = new InetSocketAddress(host, port);
      if (address.isUnresolved()) {
        throw new UnknownHostException(host);
      }
      socket.bind(address);
    } catch (UnknownHostException e) {
      throw new ConfigException("host '" + host + "' of " + owner + " cannot be resolved");
    } catch (IOException e) {
      throw new ConfigException("port " + port + " on " + host + " (" + owner + ") is already in use"
          + " or cannot be bound: " + e.getMessage());
    }
  }
}
