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
import dev.tandem.config.NetworkTransport;
import dev.tandem.config.NetworkTransports;
import dev.tandem.config.OptionValues;
import dev.tandem.supervisor.SupervisorVerticle;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
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

  /** Why a command could not get its Vert.x, already told on stderr; the command's exit code. */
  static final class JoinFailed extends Exception {
    final int exitCode;

    JoinFailed(int exitCode) {
      super(null, null, false, false);
      this.exitCode = exitCode;
    }
  }

  /**
   * {@link #start}, for a command ({@code "tandem router"}): a bad cluster option or a transport
   * that cannot load is told as a usage error (exit code 2), a cluster it cannot join as exit
   * code 1.
   */
  static Vertx startFor(String command, OptionValues<?> config, NetworkTransport transport)
      throws JoinFailed {
    try {
      return start(config, transport);
    } catch (ConfigException e) {
      System.err.println(command + ": " + e.getMessage());
      throw new JoinFailed(ConfigException.EXIT_CODE);
    } catch (ExecutionException e) {
      System.err.println(command + ": cannot join the cluster: " + e.getCause().getMessage());
      throw new JoinFailed(1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new JoinFailed(1);
    } catch (RuntimeException e) {
      System.err.println(command + ": cannot join the cluster: " + e);
      throw new JoinFailed(1);
    }
  }

  /**
   * What a shutdown hook does: lets the supervisor's router finish the requests it has ({@link
   * SupervisorVerticle#drain}, at most {@code drainWait}; new ones get 503 meanwhile), then
   * {@link #close}s. Closing first would stop the engines alongside the router and cut them.
   */
  static void drainThenClose(String command, SupervisorVerticle supervisor, Vertx vertx,
      java.time.Duration drainWait, java.time.Duration closeWait,
      java.util.concurrent.CountDownLatch closed) {
    try {
      supervisor.drain().toCompletionStage().toCompletableFuture()
          .get(drainWait.toMillis() + 5_000, java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      System.err.println(command + ": stopping: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    close(command, vertx, closeWait, closed);
  }

  /**
   * Closes {@code vertx} (undeploying what runs on it: engines stop within their grace), waiting
   * at most {@code wait}; counts {@code closed} down however it ends. For shutdown hooks.
   */
  static void close(String command, Vertx vertx, java.time.Duration wait,
      java.util.concurrent.CountDownLatch closed) {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(wait.toMillis(),
          java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      System.err.println(command + ": stopping: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closed.countDown();
    }
  }

  /**
   * A plain Vert.x, or a clustered one once it has joined (blocking: call from main), its
   * connections on {@code transport}.
   */
  static Vertx start(OptionValues<?> config, NetworkTransport transport)
      throws InterruptedException, ExecutionException {
    try {
      return start(config, NetworkTransports.apply(Vertx.builder(), transport));
    } catch (RuntimeException e) {
      if (e instanceof ConfigException || !NetworkTransports.picksIoUring(transport)) {
        throw e;
      }
      // io_uring loaded, but its event loops did not start here (a ring the kernel refused, a
      // locked-memory limit): auto goes on as it would without io_uring, and the log says so
      System.err.println("io_uring did not start (" + e + "); using epoll or nio instead");
      return start(config, NetworkTransports.applyWithoutIoUring(Vertx.builder()));
    }
  }

  private static Vertx start(OptionValues<?> config, VertxBuilder builder)
      throws InterruptedException, ExecutionException {
    if (!config.get(CLUSTER)) {
      return builder.build();
    }
    HazelcastClusterManager manager = new HazelcastClusterManager(hazelcastConfig(config));
    Future<Vertx> clustered = builder.with(vertxOptions(config)).withClusterManager(manager)
        .buildClustered();
    return clustered.toCompletionStage().toCompletableFuture().get();
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
