package dev.tandem.config;

import static dev.tandem.config.Rule.each;
import static dev.tandem.config.Rule.notBlank;

import dev.tandem.bus.Addresses;
import java.util.List;

/**
 * The options of {@code tandem node}, the engine-host agent of a clustered fleet
 * (docs/cluster.md): which endpoint hosts it serves, its fleet and log folder, and how it joins
 * the cluster (the same {@link ClusterOptions} as the router's, declared once there).
 */
public final class NodeOptions extends OptionValues<NodeOptions> {

  private static final OptionTable NODE = new OptionTable("Node");

  /** Empty: every non-loopback address of this machine's interfaces, and its host name. */
  public static final Option<List<String>> HOSTS = NODE.add(Option.of("hosts", "--hosts",
      ValueType.listOf(ValueType.STRING, ","), List.<String>of()).rule(each(notBlank()))
      .label("HOST").help("comma-separated endpoint hosts this node serves, as the router's"
          + " --endpoint-hosts name them; none: this machine's non-loopback addresses and host"
          + " name"));

  static {
    NODE.add(RouterOptions.FLEET_NAME);
    NODE.add(RouterConfig.LOG_DIR);
  }

  private static final OptionTable CLUSTER = new OptionTable("Cluster");

  static {
    for (Option<?> option : List.of(ClusterOptions.CLUSTER, ClusterOptions.CLUSTER_CONFIG,
        ClusterOptions.CLUSTER_HOST, ClusterOptions.CLUSTER_PUBLIC_HOST, ClusterOptions.CLUSTER_PORT,
        ClusterOptions.CLUSTER_KEY, ClusterOptions.CLUSTER_CERT, ClusterOptions.CLUSTER_TRUST)) {
      CLUSTER.add(option);
    }
  }

  public static final OptionTable OPTIONS = OptionTable.of("tandem node", NODE, CLUSTER);

  public NodeOptions() {
    super(OPTIONS);
  }

  /** The fleet's bus addresses ({@code --fleet}). */
  public Addresses addresses() {
    return Addresses.of(get(RouterOptions.FLEET_NAME));
  }

  /** A node always clusters; its TLS needs all three files, as the router's does. */
  public void validate() {
    if (!get(ClusterOptions.CLUSTER)) {
      throw new ConfigException("tandem node needs --cluster: it serves a fleet whose router is"
          + " another member of the cluster");
    }
    ConfigValidator.checkClusterTls(this);
  }
}
