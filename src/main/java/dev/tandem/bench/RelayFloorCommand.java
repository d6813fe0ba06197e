package dev.tandem.bench;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tandem bench relay-floor}: serves {@link RelayFloorServer} until stopped, one instance
 * per event loop, on the native transport where it loads (as the router's default).
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

  @Override
  public Integer call() throws Exception {
    int n = loops > 0 ? loops : Runtime.getRuntime().availableProcessors();
    Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true).setEventLoopPoolSize(n));
    vertx.deployVerticle(() -> new RelayFloorServer(host, port, upstreamPort),
        new DeploymentOptions().setInstances(n)).toCompletionStage().toCompletableFuture().get();
    System.err.println("relay floor on " + host + ":" + port + " -> " + host + ":" + upstreamPort
        + " (" + n + " event loop" + (n == 1 ? "" : "s") + ")");
    UntilStopped.await(vertx);
    return 0;
  }
}
