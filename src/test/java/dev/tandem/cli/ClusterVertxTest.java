package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import dev.tandem.config.ClusterOptions;
import dev.tandem.config.NetworkTransport;
import dev.tandem.config.RouterConfig;
import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TestCerts;
import dev.tandem.testing.TestCluster;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The cluster's configuration: the shipped cluster.xml, the event bus's options, a TLS join. */
class ClusterVertxTest {
  @TempDir Path dir;

  @Test
  void theJarsClusterXmlIsWhatEveryVertxAppLoadsAndItIsSafe() throws Exception {
    Config hz = ConfigUtil.loadConfig(); // what HazelcastClusterManager() uses with no code
    assertEquals("tandem", hz.getClusterName());
    JoinConfig join = hz.getNetworkConfig().getJoin();
    assertTrue(join.getTcpIpConfig().isEnabled());
    assertEquals(List.of("127.0.0.1"), join.getTcpIpConfig().getMembers());
    assertFalse(join.getMulticastConfig().isEnabled(), "multicast");
    assertFalse(join.getAutoDetectionConfig().isEnabled(), "auto-detection");
    assertFalse(join.getAwsConfig().isEnabled() || join.getGcpConfig().isEnabled()
        || join.getAzureConfig().isEnabled() || join.getKubernetesConfig().isEnabled()
        || join.getEurekaConfig().isEnabled(), "cloud discovery");
    assertEquals("false", hz.getProperty("hazelcast.phone.home.enabled"));
    assertEquals("false", hz.getProperty("hazelcast.socket.bind.any"));
    assertTrue(hz.getNetworkConfig().getInterfaces().isEnabled());
    assertEquals(List.of("127.0.0.1"), List.copyOf(hz.getNetworkConfig().getInterfaces()
        .getInterfaces()));
    assertEquals(Files.readString(Path.of("conf/cluster.xml")), TestCluster.shippedXml(),
        "conf/cluster.xml is the jar's cluster.xml");
    // --cluster without --cluster-config is the same lookup
    RouterConfig cluster = new RouterConfig().set(ClusterOptions.CLUSTER, true);
    assertEquals("tandem", ClusterVertx.hazelcastConfig(cluster).getClusterName());
  }

  @Test
  void clusterConfigMayBeYaml() throws Exception {
    Path yaml = Files.writeString(dir.resolve("hz.yaml"), "hazelcast:\n  cluster-name: blue\n");
    RouterConfig config = new RouterConfig().set(ClusterOptions.CLUSTER, true)
        .set(ClusterOptions.CLUSTER_CONFIG, yaml.toString());
    assertEquals("blue", ClusterVertx.hazelcastConfig(config).getClusterName());
  }

  @Test
  void eventBusAddressAndTlsFollowTheFlags() {
    EventBusOptions plain = ClusterVertx.vertxOptions(new RouterConfig()).getEventBusOptions();
    assertFalse(plain.isSsl());
    assertEquals(0, plain.getPort());
    RouterConfig config = new RouterConfig().set(ClusterOptions.CLUSTER, true)
        .set(ClusterOptions.CLUSTER_HOST, "10.0.0.5").set(ClusterOptions.CLUSTER_PUBLIC_HOST, "r1")
        .set(ClusterOptions.CLUSTER_PORT, 7000).set(ClusterOptions.CLUSTER_KEY, "k.pem")
        .set(ClusterOptions.CLUSTER_CERT, "c.pem").set(ClusterOptions.CLUSTER_TRUST, "ca.pem");
    EventBusOptions bus = ClusterVertx.vertxOptions(config).getEventBusOptions();
    assertEquals("10.0.0.5", bus.getHost());
    assertEquals("r1", bus.getClusterPublicHost());
    assertEquals(7000, bus.getPort());
    assertTrue(bus.isSsl());
    assertEquals(ClientAuth.REQUIRED, bus.getClientAuth());
    PemKeyCertOptions keyCert = assertInstanceOf(PemKeyCertOptions.class, bus.getKeyCertOptions());
    assertEquals(List.of("k.pem"), keyCert.getKeyPaths());
    assertEquals(List.of("c.pem"), keyCert.getCertPaths());
    assertEquals(List.of("ca.pem"), assertInstanceOf(PemTrustOptions.class,
        bus.getTrustOptions()).getCertPaths());
    assertNull(plain.getClusterPublicHost());
  }

  /** Two members of the shipped configuration (own name and port) talk over a TLS event bus. */
  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void twoMembersJoinAndTalkOverTls() throws Exception {
    TestCluster.useFastProperties();
    TestCerts.Pem pem = TestCerts.selfSigned(dir.resolve("tls"));
    Path hz = TestCluster.config(dir, FreePorts.of(1)[0]);
    RouterConfig config = new RouterConfig().set(ClusterOptions.CLUSTER, true)
        .set(ClusterOptions.CLUSTER_CONFIG, hz.toString())
        .set(ClusterOptions.CLUSTER_HOST, "127.0.0.1")
        .set(ClusterOptions.CLUSTER_KEY, pem.key().toString())
        .set(ClusterOptions.CLUSTER_CERT, pem.cert().toString())
        .set(ClusterOptions.CLUSTER_TRUST, pem.cert().toString());
    Vertx a = ClusterVertx.start(config, NetworkTransport.AUTO);
    Vertx b = null;
    try {
      a.eventBus().<JsonObject>consumer("test.echo", m -> m.reply(m.body().put("by", "a")))
          .completion().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      b = ClusterVertx.start(config, NetworkTransport.AUTO);
      assertTrue(b.isClustered());
      JsonObject reply = b.eventBus().<JsonObject>request("test.echo", new JsonObject().put("n", 1))
          .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS).body();
      assertEquals(new JsonObject().put("n", 1).put("by", "a"), reply);
    } finally {
      // one after the other: two members leaving at once slow each other's graceful shutdown
      (b == null ? Future.<Void>succeededFuture() : b.close()).transform(x -> a.close())
          .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
