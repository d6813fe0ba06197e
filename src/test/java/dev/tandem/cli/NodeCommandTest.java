package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code tandem node}: its flags come from NodeOptions; a bad one exits with code 2. */
class NodeCommandTest {

  @Test
  void aNodeNeedsTheCluster() {
    String[] result = run("node", "--hosts", "gpu-1");
    assertEquals("2", result[0]);
    assertTrue(result[1].contains("tandem node needs --cluster"), result[1]);
  }

  @Test
  void tlsNeedsAllThreeFilesAndBadFlagsAreUsageErrors() {
    String[] tls = run("node", "--cluster", "--cluster-key", "/k.pem");
    assertEquals("2", tls[0]);
    assertTrue(tls[1].contains("--cluster-cert"), tls[1]);
    String[] port = run("node", "--cluster", "--cluster-port", "70000");
    assertEquals("2", port[0]);
    assertTrue(port[1].contains("--cluster-port"), port[1]);
  }

  @Test
  void helpListsTheNodeAndClusterFlags() {
    String[] help = run("node", "--help");
    assertEquals("0", help[0]);
    for (String flag : List.of("--hosts", "--fleet", "--log-dir", "--cluster-config",
        "--cluster-host", "--cluster-key")) {
      assertTrue(help[2].contains(flag), flag + " in\n" + help[2]);
    }
  }

  /** Loopback names are every machine's: a node claims them only when told (--hosts). */
  @Test
  void thisMachineIsItsNameAndAddressesButNoLoopback() throws Exception {
    List<String> hosts = NodeCommand.thisMachine();
    assertTrue(hosts.contains(java.net.InetAddress.getLocalHost().getHostName()), hosts.toString());
    assertTrue(!hosts.contains("127.0.0.1") && !hosts.contains("localhost")
        && !hosts.contains("::1") && !hosts.contains("0:0:0:0:0:0:0:1"), hosts.toString());
  }

  /** {exit code, stderr, stdout}. */
  private static String[] run(String... args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      int code = new CommandLine(new Tandem()).execute(args);
      return new String[] {Integer.toString(code), err.toString(StandardCharsets.UTF_8),
          out.toString(StandardCharsets.UTF_8)};
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }
}
