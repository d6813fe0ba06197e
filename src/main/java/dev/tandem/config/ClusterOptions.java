package dev.tandem.config;

import static dev.tandem.config.Rule.between;
import static dev.tandem.config.Rule.notBlank;

/**
 * The {@code Cluster} section of {@link RouterConfig}: how {@code tandem router --cluster} joins a
 * Vert.x cluster through Hazelcast, and the clustered event bus's own address and TLS
 * (docs/cluster.md). These options shape the Vert.x instance the command line builds;
 * under the Vert.x launcher ({@code -cluster}) the launcher's own flags do that instead.
 */
public final class ClusterOptions {

  public static final OptionTable OPTIONS = new OptionTable("Cluster");

  public static final Option<Boolean> CLUSTER = OPTIONS.add(Option.bool("cluster", "--cluster",
      false).help("join a Vert.x cluster through Hazelcast, so clustered Vert.x applications call the"
          + " fleet on the event bus (docs/cluster.md)"));
  public static final Option<Boolean> ATTACH = OPTIONS.add(Option.bool("attach", "--attach",
      false).help("a router only: serve the fleet of this --fleet name that another router started"
          + " on the cluster, its engines learnt from the bus (the endpoint options are ignored)"));
  public static final Option<Boolean> STOP_REMOTE_ENGINES = OPTIONS.add(Option.bool(
      "stopRemoteEngines", "--stop-remote-engines", false).help("engines that tandem nodes run"
          + " for this router stop when it stops or dies (a node stops them once the router's"
          + " heartbeat is silent); without it they keep serving and the next router adopts them"));
  public static final Option<String> CLUSTER_CONFIG = OPTIONS.add(Option.string("clusterConfig",
      "--cluster-config", null).rule(notBlank()).label("FILE")
      .help("Hazelcast XML or YAML configuration; none: cluster.xml on the class path (the jar's:"
          + " cluster tandem, TCP-IP on 127.0.0.1 only)"));
  public static final Option<String> CLUSTER_HOST = OPTIONS.add(Option.string("clusterHost",
      "--cluster-host", null).rule(notBlank()).label("HOST")
      .help("where this process's event bus listens; none: the Hazelcast member's address"));
  public static final Option<String> CLUSTER_PUBLIC_HOST = OPTIONS.add(Option.string(
      "clusterPublicHost", "--cluster-public-host", null).rule(notBlank()).label("HOST")
      .help("the event-bus address other members connect to (behind NAT or in a container);"
          + " none: --cluster-host"));
  public static final Option<Integer> CLUSTER_PORT = OPTIONS.add(Option.integer("clusterPort",
      "--cluster-port", 0).rule(between(0, 65535)).label("PORT")
      .help("the event bus's port; 0: any free port"));
  public static final Option<String> CLUSTER_KEY = OPTIONS.add(Option.string("clusterKeyFile",
      "--cluster-key", null).rule(notBlank()).label("FILE")
      .help("event bus over TLS: this member's private key (PEM); with --cluster-cert and"
          + " --cluster-trust"));
  public static final Option<String> CLUSTER_CERT = OPTIONS.add(Option.string("clusterCertFile",
      "--cluster-cert", null).rule(notBlank()).label("FILE")
      .help("event bus over TLS: this member's certificate chain (PEM)"));
  public static final Option<String> CLUSTER_TRUST = OPTIONS.add(Option.string("clusterTrustFile",
      "--cluster-trust", null).rule(notBlank()).label("FILE")
      .help("event bus over TLS: the CA certificate(s) members must present (PEM); every member"
          + " is server and client, so each needs all three"));

  private ClusterOptions() {}
}
