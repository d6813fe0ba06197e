package dev.tandem.bench;

import dev.tandem.config.NetworkTransport;
import dev.tandem.config.NetworkTransports;
import dev.tandem.config.RouterOptions;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.internal.VertxInternal;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tandem bench relay-floor}: serves {@link RelayFloorServer} until stopped, one instance
 * per event loop, on the transport the router would pick ({@code --network-transport}, auto by
 * default: io_uring where it loads, as {@code tandem router}); with {@code --server netty},
 * {@link NettyRelayFloor} instead: the same relay on Netty alone.
 */
@Command(name = "relay-floor", mixinStandardHelpOptions = true,
    description = "The router's transport with none of its work (bytes relayed unchanged to one"
        + " upstream), to measure what the frameworks cost per request.")
public final class RelayFloorCommand implements Callable<Integer> {

  @Option(names = "--host", defaultValue = "127.0.0.1")
  String host;

  @Option(names = "--port", required = true)
  int port;

  @Option(names = "--upstream-port", required = true, description = "The upstream on the same host.")
  int upstreamPort;

  @Option(names = "--loops", defaultValue = "0", description = "Event loops; 0: one per core."
      + " Default ${DEFAULT-VALUE}")
  int loops;

  @Option(names = "--server", defaultValue = "vertx", description = "vertx: a Vert.x HttpServer"
      + " in front, as the router; netty: a bare Netty pipeline. Default ${DEFAULT-VALUE}")
  String server;

  @Option(names = "--network-transport", defaultValue = "auto", description = "auto, io_uring,"
      + " epoll or nio, as tandem router's option. Default ${DEFAULT-VALUE}")
  String transport;

  @Override
  public Integer call() throws Exception {
    int n = loops > 0 ? loops : Runtime.getRuntime().availableProcessors();
    if (!server.equals("vertx") && !server.equals("netty")) {
      System.err.println("--server must be vertx or netty, not '" + server + "'");
      return 2;
    }
    NetworkTransport choice;
    try { // read as tandem router reads it
      choice = RouterOptions.NETWORK_TRANSPORT.type().fromArgs().apply(List.of(transport));
    } catch (RuntimeException e) {
      System.err.println("--network-transport " + e.getMessage());
      return 2;
    }
    Vertx vertx = NetworkTransports.apply(Vertx.builder(), choice)
        .with(new VertxOptions().setEventLoopPoolSize(n)).build();
    String loops = n + " event loop" + (n == 1 ? "" : "s") + ", "
        + NetworkTransports.describe(vertx, choice);
    if (server.equals("netty")) {
      new NettyRelayFloor((VertxInternal) vertx, host, port, upstreamPort).start();
      System.err.println("netty relay floor on " + host + ":" + port + " -> " + host + ":"
          + upstreamPort + " (" + loops + ")");
      UntilStopped.await(vertx);
      return 0;
    }
    vertx.deployVerticle(() -> new RelayFloorServer(host, port, upstreamPort),
        new DeploymentOptions().setInstances(n)).toCompletionStage().toCompletableFuture().get();
    System.err.println("relay floor on " + host + ":" + port + " -> " + host + ":" + upstreamPort
        + " (" + loops + ")");
    UntilStopped.await(vertx);
    return 0;
  }
}
