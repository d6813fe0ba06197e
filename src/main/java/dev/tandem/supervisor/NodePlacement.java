package dev.tandem.supervisor;

import dev.tandem.config.ClusterOptions;
import dev.tandem.config.ConfigValidator;
import dev.tandem.config.EndpointConfig;
import dev.tandem.config.RouterConfig;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Where each endpoint of a clustered fleet runs: on the {@code tandem node} that serves its host,
 * on a node yet to come when its host is not this machine's, else under the router as ever; and
 * where the builtin world's root must listen so that every engine reaches it.
 */
final class NodePlacement {

  private NodePlacement() {}

  /**
   * After the nodes had {@code discovery} to announce themselves (counted from when the directory
   * listens), the ids of the endpoints that nodes run. Checks that the ports of the others are
   * free here (a {@code ConfigException} otherwise).
   */
  static Future<Set<Integer>> onNodes(Vertx vertx, List<EndpointConfig> endpoints,
      NodeDirectory nodes, Future<Void> listening, Duration discovery) {
    Future<Set<String>> localHosts = vertx.executeBlocking(() -> {
      Set<String> local = new HashSet<>();
      for (EndpointConfig e : endpoints) {
        if (ConfigValidator.isLocalHost(e.host())) { // may ask DNS: off the event loop
          local.add(e.host());
        }
      }
      return local;
    });
    Promise<Void> listened = Promise.promise();
    listening.onComplete(ar -> vertx.setTimer(discovery.toMillis(), id -> listened.complete()));
    return Future.all(localHosts, listened.future()).compose(v -> {
      Set<Integer> remote = new HashSet<>();
      for (EndpointConfig e : endpoints) {
        if (nodes.serving(e.host()).isPresent() || !localHosts.result().contains(e.host())) {
          remote.add(e.id());
        }
      }
      List<EndpointConfig> here = endpoints.stream().filter(e -> !remote.contains(e.id())).toList();
      return vertx.executeBlocking(() -> {
        ConfigValidator.checkEndpointPorts(here); // binds sockets: off the event loop
        return remote;
      });
    });
  }

  /**
   * Where the builtin world's root listens: the first endpoint's host when every engine runs
   * here, the router's cluster address when nodes run some of them (they must reach it).
   */
  static String worldRootHost(RouterConfig config, Set<Integer> onNodes) {
    String first = config.endpoints().get(0).host();
    if (onNodes.isEmpty()) {
      return first;
    }
    String bus = config.get(ClusterOptions.CLUSTER_HOST) != null
        ? config.get(ClusterOptions.CLUSTER_HOST) : config.get(ClusterOptions.CLUSTER_PUBLIC_HOST);
    return bus != null ? bus : first;
  }
}
