package dev.tandem.cli;

import dev.tandem.config.ConfigException;
import dev.tandem.config.NetworkTransport;
import dev.tandem.config.NodeOptions;
import dev.tandem.config.RouterConfig;
import dev.tandem.fleet.NodeVerticle;
import io.vertx.core.Vertx;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code tandem node --cluster}: joins the cluster and runs, as its own children, the engines a
 * router's supervisor sends it for the endpoint hosts it serves ({@link NodeVerticle},
 * docs/cluster.md). Serves until SIGTERM or Ctrl-C, which stop its engines within their grace
 * period. A bad flag exits with code 2, a cluster it cannot join with 1.
 */
@Command(name = "node", mixinStandardHelpOptions = true, sortOptions = false,
    modelTransformer = NodeCommand.Flags.class, customSynopsis = "tandem node --cluster [OPTIONS]",
    description = "Run the engines of a clustered fleet's endpoints on this host.")
public final class NodeCommand implements Callable<Integer> {
  /** How long a stop may take: its engines' grace period and some. */
  private static final java.time.Duration CLOSE_WAIT =
      RouterConfig.STOP_GRACE.defaultValue().plusSeconds(20);

  /** The node's flags, made from {@link NodeOptions#OPTIONS} as the router's are. */
  public static final class Flags implements IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec spec) {
      return ConfigFlags.addFlags(spec, NodeOptions.OPTIONS);
    }
  }

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    NodeOptions options = new NodeOptions();
    try {
      ConfigFlags.apply(spec.commandLine().getParseResult(), options);
      options.validate();
    } catch (ConfigException e) {
      System.err.println("tandem node: " + e.getMessage());
      return ConfigException.EXIT_CODE;
    }
    List<String> hosts = options.get(NodeOptions.HOSTS).isEmpty() ? thisMachine()
        : options.get(NodeOptions.HOSTS);
    Vertx vertx;
    try {
      vertx = ClusterVertx.startFor("tandem node", options, NetworkTransport.AUTO);
    } catch (ClusterVertx.JoinFailed e) {
      return e.exitCode;
    }
    String nodeId = "node-" + UUID.randomUUID().toString().substring(0, 8);
    CountDownLatch closed = new CountDownLatch(1);
    Thread hook = new Thread(() -> close(vertx, closed), "tandem-node-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      vertx.deployVerticle(new NodeVerticle(nodeId, hosts,
          Path.of(options.get(RouterConfig.LOG_DIR)), options.addresses()))
          .toCompletionStage().toCompletableFuture().get();
      System.out.println("tandem node " + nodeId + " serving " + hosts + " (fleet '"
          + options.addresses().fleet() + "')");
      closed.await();
    } catch (ExecutionException e) {
      System.err.println("tandem node: start-up failed: " + e.getCause().getMessage());
      close(vertx, closed);
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  /**
   * Every non-loopback address of this machine's interfaces that are up, and its host name. Not
   * {@code 127.0.0.1} or {@code localhost}: every machine has those, and a router's own loopback
   * endpoints must not go to whichever node answers first (give {@code --hosts} to serve one).
   */
  static List<String> thisMachine() {
    Set<String> hosts = new LinkedHashSet<>();
    try {
      InetAddress local = InetAddress.getLocalHost();
      hosts.add(local.getHostName());
      hosts.add(local.getCanonicalHostName());
    } catch (UnknownHostException e) {
      // no host name: the addresses alone
    }
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        if (nic.isUp()) {
          for (InetAddress a : Collections.list(nic.getInetAddresses())) {
            if (a.isLoopbackAddress()) {
              continue;
            }
            String text = a.getHostAddress();
            int scope = text.indexOf('%');
            hosts.add(scope < 0 ? text : text.substring(0, scope));
          }
        }
      }
    } catch (SocketException e) {
      // no interfaces listed: the host name alone
    }
    hosts.remove("localhost");
    return new ArrayList<>(hosts);
  }

  private static void close(Vertx vertx, CountDownLatch closed) {
    ClusterVertx.close("tandem node", vertx, CLOSE_WAIT, closed);
  }
}
