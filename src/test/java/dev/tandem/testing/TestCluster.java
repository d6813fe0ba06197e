package dev.tandem.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;

/**
 * A Hazelcast cluster of a test's own on loopback: the jar's {@code cluster.xml} with a cluster
 * name and first port nobody else uses (so parallel or leftover members never join), and the
 * Hazelcast properties that make loopback joins and member loss fast.
 */
public final class TestCluster {

  private TestCluster() {}

  /** The jar's (the class path's) cluster.xml, as text. */
  public static String shippedXml() throws IOException {
    try (InputStream in = TestCluster.class.getClassLoader().getResourceAsStream("cluster.xml")) {
      if (in == null) {
        throw new IllegalStateException("cluster.xml is not on the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /**
   * Writes {@code cluster.xml} into {@code dir}: the shipped file with cluster name
   * {@code tandem-test-<random>}, first port {@code port}, member {@code 127.0.0.1:port}.
   */
  public static Path config(Path dir, int port) throws IOException {
    String xml = shippedXml();
    String ours = replaceOnce(xml, "<cluster-name>tandem</cluster-name>",
        "<cluster-name>tandem-test-" + UUID.randomUUID() + "</cluster-name>");
    ours = replaceOnce(ours, ">5701</port>", ">" + port + "</port>");
    ours = replaceOnce(ours, "<member>127.0.0.1</member>", "<member>127.0.0.1:" + port + "</member>");
    ours = replaceOnce(ours, "connection-timeout-seconds=\"2\"", "connection-timeout-seconds=\"1\"");
    return Files.writeString(Files.createDirectories(dir).resolve("cluster.xml"), ours);
  }

  /**
   * System properties (as JVM options) for members on one machine: join at once, and notice a
   * member killed with -9 within a few seconds. The shipped cluster.xml leaves them at Hazelcast's
   * defaults, so system properties decide.
   */
  public static List<String> fastJvmOptions() {
    return List.of("-Dhazelcast.wait.seconds.before.join=0",
        "-Dhazelcast.heartbeat.interval.seconds=1", "-Dhazelcast.max.no.heartbeat.seconds=6",
        "-Dhazelcast.phone.home.enabled=false");
  }

  /** Sets {@link #fastJvmOptions()} in this JVM (in-process members). */
  public static void useFastProperties() {
    for (String option : fastJvmOptions()) {
      String[] kv = option.substring(2).split("=", 2);
      System.setProperty(kv[0], kv[1]);
    }
  }

  private static String replaceOnce(String text, String from, String to) {
    int at = text.indexOf(from);
    if (at < 0 || text.indexOf(from, at + 1) >= 0) {
      throw new IllegalStateException("cluster.xml has not exactly one " + from);
    }
    return text.replace(from, to);
  }
}
