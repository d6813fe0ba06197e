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
 * The rules that span several options of a {@link RouterConfig} (each option's own rules were
 * checked when it was set: see {@link Rule}). Each check throws a {@link ConfigException} with a
 * one-line message; the command line exits with code 2. {@link #validate} is pure;
 * {@link #checkEnvironment} looks at the file system and binds sockets, so run it off event loops.
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
    if (config.get(RouterConfig.MODEL) == null) {
      throw new ConfigException("a model folder is required (tandem router MODEL, or \"model\" in"
          + " the JSON configuration)");
    }
    // An attached router starts no engine: the fleet's endpoints are another router's business.
    List<EndpointConfig> endpoints = config.get(ClusterOptions.ATTACH) ? List.of()
        : config.endpoints();
    checkPortsDiffer(config.get(RouterOptions.ROUTER_PORT), config.get(RouterOptions.ADMIN_PORT),
        endpoints);
    if (config.get(RouterOptions.ROUTER_MODE) == RouterMode.DISAGG && !endpoints.isEmpty()) {
      checkDisaggTopology(endpoints);
    }
    checkCluster(config);
    Duration backoff = config.get(RouterConfig.RESTART_BACKOFF);
    if (config.get(RouterConfig.RESTART_BACKOFF_MAX).compareTo(backoff) < 0) {
      throw new ConfigException("--restart-backoff-max (restartBackoffMaxMs) must not be below"
          + " --restart-backoff (restartBackoffMs)");
    }
  }

  /** The model folder and its tokenizer exist, and a given chat template; every port is free to listen on. */
  public static void checkEnvironment(RouterConfig config) {
    Path model = Path.of(config.get(RouterConfig.MODEL));
    if (!Files.isDirectory(model)) {
      throw new ConfigException("model folder " + model.toAbsolutePath() + " does not exist"
          + " (make one with: tandem make-model " + model + " --preset tiny)");
    }
    if (!Files.isRegularFile(model.resolve("tokenizer.json"))) {
      throw new ConfigException("model folder " + model.toAbsolutePath() + " has no tokenizer.json"
          + " (the router tokenizes prompts with it)");
    }
    String template = config.get(RouterOptions.CHAT_TEMPLATE);
    if (template != null && !Files.isRegularFile(Path.of(template))) {
      throw new ConfigException("--chat-template " + Path.of(template).toAbsolutePath()
          + " is not a file (give a Jinja template, or a JSON file with \"chat_template\")");
    }
    for (Option<String> file : List.of(ClusterOptions.CLUSTER_CONFIG, ClusterOptions.CLUSTER_KEY,
        ClusterOptions.CLUSTER_CERT, ClusterOptions.CLUSTER_TRUST, RouterConfig.FLEET_SECRET_FILE)) {
      String given = config.get(file);
      if (given != null && !Files.isRegularFile(Path.of(given))) {
        throw new ConfigException(file.flag() + " " + Path.of(given).toAbsolutePath()
            + " is not a file");
      }
    }
    checkFree("the router", config.get(RouterOptions.ROUTER_HOST),
        config.get(RouterOptions.ROUTER_PORT));
    Integer adminPort = config.get(RouterOptions.ADMIN_PORT);
    if (adminPort != null && adminPort != 0) {
      checkFree("the admin routes", config.get(RouterOptions.ROUTER_HOST), adminPort);
    }
    if (config.get(ClusterOptions.CLUSTER)) {
      // Which endpoints run here is known once the fleet's tandem nodes were heard: the
      // supervisor checks those (checkEndpointPorts); a node checks its own when it starts one.
      return;
    }
    checkEndpointPorts(config.endpoints());
  }

  /**
   * Every endpoint's port is free on its host, and its host is this machine's: engines on other
   * machines run under a {@code tandem node}, which needs {@code --cluster}.
   */
  public static void checkEndpointPorts(List<EndpointConfig> endpoints) {
    for (EndpointConfig endpoint : endpoints) {
      if (!isLocalHost(endpoint.host()) && resolves(endpoint.host())) {
        throw new ConfigException("host '" + endpoint.host() + "' of endpoint " + endpoint.id()
            + " is not an address of this machine: engines on other machines run under a"
            + " `tandem node --cluster` there, and the router needs --cluster (docs/cluster.md)");
      }
      checkFree("endpoint " + endpoint.id(), endpoint.host(), endpoint.port());
    }
  }

  private static boolean resolves(String host) {
    try {
      java.net.InetAddress.getByName(host);
      return true;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /**
   * Whether {@code host} names this machine: a loopback address or one of its interfaces'.
   * A name that does not resolve is not (the caller decides whether that is an error). Blocking:
   * may ask DNS.
   */
  public static boolean isLocalHost(String host) {
    try {
      java.net.InetAddress address = java.net.InetAddress.getByName(host);
      return address.isLoopbackAddress() || address.isAnyLocalAddress()
          || java.net.NetworkInterface.getByInetAddress(address) != null;
    } catch (IOException e) {
      return false;
    }
  }

  /** Cluster options need --cluster; the event bus's TLS needs key, certificate and trust. */
  private static void checkCluster(RouterConfig config) {
    List<Option<?>> given = ClusterOptions.OPTIONS.options().stream()
        .filter(o -> o != ClusterOptions.CLUSTER && config.get(o) != null
            && !config.get(o).equals(o.defaultValue()))
        .toList();
    if (!config.get(ClusterOptions.CLUSTER) && !given.isEmpty()) {
      throw new ConfigException(given.get(0).flag() + " needs --cluster (it configures the"
          + " clustered event bus)");
    }
    checkClusterTls(config);
  }

  /** The event bus's TLS needs key, certificate and trust, or none of them (router and node). */
  public static void checkClusterTls(OptionValues<?> config) {
    List<Option<String>> tls = List.of(ClusterOptions.CLUSTER_KEY, ClusterOptions.CLUSTER_CERT,
        ClusterOptions.CLUSTER_TRUST);
    long set = tls.stream().filter(o -> config.get(o) != null).count();
    if (set != 0 && set != tls.size()) {
      throw new ConfigException("the event bus's TLS needs all of --cluster-key, --cluster-cert and"
          + " --cluster-trust (each member both accepts and opens connections); missing: "
          + String.join(", ", tls.stream().filter(o -> config.get(o) == null).map(Option::flag)
              .toList()));
    }
  }

  private static void checkPortsDiffer(int routerPort, Integer adminPort,
      List<EndpointConfig> endpoints) {
    Map<Integer, String> owners = new HashMap<>();
    owners.put(routerPort, "the router");
    if (adminPort != null && adminPort != 0 && owners.putIfAbsent(adminPort, "--admin-port") != null) {
      throw new ConfigException("--admin-port " + adminPort + " is the router's port; give the"
          + " admin routes a port of their own, or leave --admin-port out to serve them on it");
    }
    for (EndpointConfig endpoint : endpoints) {
      String owner = "endpoint " + endpoint.id();
      String previous = owners.putIfAbsent(endpoint.port(), owner);
      if (previous != null) {
        throw new ConfigException("port " + endpoint.port() + " is given twice (" + previous
            + " and " + owner + "); every engine and the router need their own port");
      }
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

  /** Fails with a {@link ConfigException} unless {@code host:port} can be bound now (blocking). */
  public static void checkFree(String owner, String host, int port) {
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
