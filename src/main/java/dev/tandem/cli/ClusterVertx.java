package dev.tandem.cli;

import static dev.tandem.config.ClusterOptions.CLUSTER;
import static dev.tandem.config.ClusterOptions.CLUSTER_CERT;
import static dev.tandem.config.ClusterOptions.CLUSTER_CONFIG;
import static dev.tandem.config.ClusterOptions.CLUSTER_HOST;
import static dev.tandem.config.ClusterOptions.CLUSTER_KEY;
import static dev.tandem.config.ClusterOptions.CLUSTER_PORT;
import static dev.tandem.config.ClusterOptions.CLUSTER_PUBLIC_HOST;
import static dev.tandem.config.ClusterOptions.CLUSTER_TRUST;

import com.hazelcast.config.Config;
import dev.tandem.config.ConfigException;
import dev.tandem.config.OptionValues;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;

/**
 * The Vert.x instance of {@code tandem router}: a plain one, or with {@code --cluster} a clustered
 * one through {@link HazelcastClusterManager} (docs/cluster.md). The Hazelcast configuration is
 * {@code --cluster-config} (XML or YAML, by its extension; Hazelcast's {@code hz.*} system
 * properties and {@code HZ_*} environment variables override it), else what every Vert.x
 * application loads: the {@code vertx.hazelcast.config} system property's file, else
 * {@code cluster.xml} on the class path, which the jar carries. The event bus listens on
 * {@code --cluster-host:--cluster-port} and, with the three PEM options, speaks TLS both ways.
 */
final class ClusterVertx {

  private ClusterVertx() {}

  /** A plain Vert.x, or a clustered one once it has joined (blocking: call from main). */
  static Vertx start(OptionValues<?> config) throws InterruptedException, ExecutionException {
    if (!config.get(CLUSTER)) {
      return Vertx.vertx(transport(new VertxOptions()));
    }
    HazelcastClusterManager manager = new HazelcastClusterManager(hazelcastConfig(config));
    Future<Vertx> clustered = Vertx.builder().with(transport(vertxOptions(config)))
        .withClusterManager(manager).buildClustered();
    return clustered.toCompletionStage().toCompletableFuture().get();
  }

  /**
   * The router process relays every byte of every answer: Netty's native epoll transport where it
   * loads (Linux x86-64), NIO elsewhere or with {@code -Dtandem.native-transport=false}.
   */
  static VertxOptions transport(VertxOptions options) {
    return options.setPreferNativeTransport(
        !"false".equals(System.getProperty("tandem.native-transport")));
  }

  /** The Hazelcast configuration: {@code --cluster-config}, else Vert.x's own lookup. */
  static Config hazelcastConfig(OptionValues<?> config) {
    String file = config.get(CLUSTER_CONFIG);
    if (file == null) {
      Config loaded = ConfigUtil.loadConfig();
      if (loaded == null) {
        throw new ConfigException("no Hazelcast configuration: cluster.xml is missing from the"
            + " class path; give --cluster-config FILE");
      }
      return loaded;
    }
    try {
      return Config.loadFromFile(Path.of(file).toFile());
    } catch (IOException | RuntimeException e) {
      throw new ConfigException("--cluster-config " + file + " is not a Hazelcast configuration"
          + " (XML, or YAML ending in .yaml/.yml): "
          + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
    }
  }

  /** The event bus's address and TLS from the cluster options. */
  static VertxOptions vertxOptions(OptionValues<?> config) {
    EventBusOptions bus = new EventBusOptions().setPort(config.get(CLUSTER_PORT));
    if (config.get(CLUSTER_HOST) != null) {
      bus.setHost(config.get(CLUSTER_HOST));
    }
    if (config.get(CLUSTER_PUBLIC_HOST) != null) {
      bus.setClusterPublicHost(config.get(CLUSTER_PUBLIC_HOST));
    }
    if (config.get(CLUSTER_KEY) != null) {
      // Each member accepts and opens event-bus connections: mutual TLS against one trust.
      bus.setSsl(true)
          .setKeyCertOptions(new PemKeyCertOptions().setKeyPath(config.get(CLUSTER_KEY))
              .setCertPath(config.get(CLUSTER_CERT)))
          .setTrustOptions(new PemTrustOptions().addCertPath(config.get(CLUSTER_TRUST)))
          .setClientAuth(ClientAuth.REQUIRED);
    }
    return new VertxOptions().setEventBusOptions(bus);
  }
}
