package dev.tandem.cli;

import static dev.tandem.config.RouterConfig.ENABLE_PREFIX_CACHE;
import static dev.tandem.config.RouterConfig.ENDPOINT_PORTS;
import static dev.tandem.config.RouterConfig.ENGINE_CDS;
import static dev.tandem.config.RouterConfig.ENGINE_JVM_OPTS;
import static dev.tandem.config.RouterConfig.HEALTH_INTERVAL;
import static dev.tandem.config.RouterConfig.LOG_DIR;
import static dev.tandem.config.RouterConfig.MODEL;
import static dev.tandem.config.RouterOptions.BUSY_WAIT;
import static dev.tandem.config.RouterOptions.FIRST_CHUNK_TIMEOUT;
import static dev.tandem.config.RouterOptions.MAX_ENGINE_ATTEMPTS;
import static dev.tandem.config.RouterOptions.PD_BALANCE_FACTOR;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.config.ClusterOptions;
import dev.tandem.config.RouterConfig;
import dev.tandem.testing.FreePorts;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code tandem router}: every configuration error exits with code 2 and a one-line message. */
class RouterCommandTest {
  @TempDir Path dir;
  private Path model;
  private int p1;
  private int p2;
  private int p3;
  private int routerPort;

  @BeforeEach
  void modelFolderAndFreePorts() throws IOException {
    model = Files.createDirectories(dir.resolve("model"));
    Files.writeString(model.resolve("tokenizer.json"), "{}");
    int[] ports = FreePorts.of(4);
    p1 = ports[0];
    p2 = ports[1];
    p3 = ports[2];
    routerPort = ports[3];
  }

  private record Result(int code, String out, String err) {}

  private Result run(String... args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      CommandLine cli = new CommandLine(new Tandem());
      int code = cli.execute(args);
      return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }

  private List<String> args(String... extra) {
    List<String> args = new ArrayList<>(List.of("router", model.toString(), "--router-port",
        Integer.toString(routerPort), "--endpoint-ports", Integer.toString(p1), Integer.toString(p2),
        Integer.toString(p3)));
    args.addAll(List.of(extra));
    return args;
  }

  private void assertUsageError(String expectedMessagePart, List<String> args) {
    Result r = run(args.toArray(String[]::new));
    assertEquals(2, r.code(), "exit code; stderr: " + r.err());
    String message = r.err().strip();
    assertEquals(1, message.lines().count(), "one line: " + message);
    assertTrue(message.startsWith("tandem router: "), message);
    assertTrue(message.contains(expectedMessagePart), message);
  }

  @Test
  void validConfigurationPrintsAsJsonAndExitsZero() {
    Result r = run(args("--print-config", "--endpoint-num-gpus", "1", "--pd-balance-factor", "0.5",
        "--health-interval", "250ms", "--engine-jvm-opts=-Xmx256m -Xss1m").toArray(String[]::new));
    assertEquals(0, r.code(), r.err());
    RouterConfig config = RouterConfig.fromJson(new JsonObject(r.out()));
    assertEquals(List.of(p1, p2, p3), config.get(ENDPOINT_PORTS));
    assertEquals(0.5, config.get(PD_BALANCE_FACTOR));
    assertEquals(250, config.get(HEALTH_INTERVAL).toMillis());
    assertEquals(List.of("-Xmx256m", "-Xss1m"), config.get(ENGINE_JVM_OPTS));
    assertEquals(model.toString(), config.get(MODEL));
  }

  @Test
  void configFileIsReadAndFlagsOverrideIt() throws IOException {
    RouterConfig fileConfig = new RouterConfig().set(MODEL, model.toString())
        .set(ENDPOINT_PORTS, List.of(p1, p2)).set(ROUTER_PORT, routerPort)
        .set(LOG_DIR, "/tmp/from-file").set(ENGINE_CDS, false).set(ENABLE_PREFIX_CACHE, true)
        .set(MAX_ENGINE_ATTEMPTS, 7).set(FIRST_CHUNK_TIMEOUT, Duration.ofSeconds(9))
        .set(BUSY_WAIT, Duration.ofSeconds(4));
    Path file = dir.resolve("router.json");
    Files.writeString(file, fileConfig.toJson().encodePrettily());
    Result r = run("router", "--config", file.toString(), "--log-dir", "/tmp/from-flag",
        "--engine-cds", "--no-enable-prefix-cache", "--max-engine-attempts", "2",
        "--first-chunk-timeout", "1.5", "--print-config");
    assertEquals(0, r.code(), r.err());
    RouterConfig config = RouterConfig.fromJson(new JsonObject(r.out()));
    // flags win over the file, both ways for switches; what no flag names keeps the file's value
    assertEquals("/tmp/from-flag", config.get(LOG_DIR));
    assertEquals(true, config.get(ENGINE_CDS));
    assertEquals(false, config.get(ENABLE_PREFIX_CACHE));
    assertEquals(2, config.get(MAX_ENGINE_ATTEMPTS));
    assertEquals(Duration.ofMillis(1500), config.get(FIRST_CHUNK_TIMEOUT));
    assertEquals(Duration.ofSeconds(4), config.get(BUSY_WAIT));
    assertEquals(List.of(p1, p2), config.get(ENDPOINT_PORTS));
    assertEquals(routerPort, config.get(ROUTER_PORT));
  }

  @Test
  void everyOptionHasAFlagExceptTheModelWhichIsPositional() {
    Result r = run("router", "--help");
    assertEquals(0, r.code(), r.err());
    for (dev.tandem.config.Option<?> option : RouterConfig.OPTIONS.options()) {
      String shown = option.flag() == null ? option.label() : option.flag().substring(2);
      assertTrue(r.out().contains(shown), "--help shows " + shown);
      assertTrue(r.out().contains("[" + option.key() + "]"), "--help names JSON key " + option.key());
    }
  }

  @Test
  void badConfigFileNamesTheFileAndTheKey() throws IOException {
    Path file = dir.resolve("bad.json");
    Files.writeString(file, "{\"model\": \"m\", \"maxEngineAtempts\": 2}");
    assertUsageError(file + ": unknown router configuration key 'maxEngineAtempts' (did you mean"
        + " 'maxEngineAttempts'?)", List.of("router", "--config", file.toString()));
    Files.writeString(file, "{\"model\": \"m\", \"busyWaitMs\": -1}");
    assertUsageError(file + ": router configuration key 'busyWaitMs' must be 0 or more, not -1ms",
        List.of("router", "--config", file.toString()));
    Files.writeString(file, "{\"model\": ");
    assertUsageError(file + " is not valid JSON", List.of("router", "--config", file.toString()));
  }

  @Test
  void listLengthsThatDoNotMatch() {
    assertUsageError("must have the same length", args("--endpoint-hosts", "127.0.0.1,127.0.0.1"));
    assertUsageError("must have the same length", args("--endpoint-num-gpus", "1", "2"));
  }

  @Test
  void disaggTopology() {
    assertUsageError("disagg mode needs at least two endpoints", List.of("router", model.toString(),
        "--router-port", Integer.toString(routerPort), "--endpoint-ports", Integer.toString(p1)));
    assertUsageError("disagg mode needs one endpoint that can prefill and another that can decode",
        args("--endpoint-roles", "decode", "decode", "decode"));
  }

  @Test
  void balanceFactorOutsideZeroToOne() {
    assertUsageError("--pd-balance-factor must be in [0, 1), not 1.0", args("--pd-balance-factor", "1"));
    assertUsageError("--pd-balance-factor must be in [0, 1), not -0.5", args("--pd-balance-factor", "-0.5"));
  }

  @Test
  void portGivenTwiceOrInUse() throws IOException {
    assertUsageError("port " + p1 + " is given twice", List.of("router", model.toString(),
        "--router-port", Integer.toString(routerPort), "--endpoint-ports", Integer.toString(p1),
        Integer.toString(p1)));
    assertUsageError("port " + p2 + " is given twice (the router and endpoint 1)",
        List.of("router", model.toString(), "--router-port", Integer.toString(p2),
            "--endpoint-ports", Integer.toString(p1), Integer.toString(p2)));
    try (ServerSocket busy = new ServerSocket(p3, 50, InetAddress.getLoopbackAddress())) {
      assertUsageError("port " + p3 + " on 127.0.0.1 (endpoint 2) is already in use", args());
    }
  }

  @Test
  void modelFolderMissingOrWithoutTokenizer() throws IOException {
    List<String> missing = args();
    missing.set(1, dir.resolve("nope").toString());
    assertUsageError("does not exist", missing);
    Files.delete(model.resolve("tokenizer.json"));
    assertUsageError("has no tokenizer.json", args());
  }

  @Test
  void badValuesOfTypedFlags() {
    assertUsageError("--router-mode must be disagg or round-robin, not 'fast'",
        args("--router-mode", "fast"));
    assertUsageError("--engine must be builtin, mlc or sim, not 'vllm'", args("--engine", "vllm"));
    assertUsageError("--network-transport must be auto, epoll, io_uring or nio, not 'uring'",
        args("--network-transport", "uring"));
    assertUsageError("--endpoint-roles must be prefill, decode or both, not 'p'",
        args("--endpoint-roles", "p", "d", "d"));
    assertUsageError("--router-port must be a whole number, not 'eighty'",
        args("--router-port", "eighty"));
    assertUsageError("--max-engine-attempts must be at least 1, not 0", args("--max-engine-attempts", "0"));
    assertUsageError("--chunk-idle-timeout must be a duration (seconds, or with a unit: 500ms, 2s,"
        + " 1m), not '2x'", args("--chunk-idle-timeout", "2x"));
    Result missingValue = run(args("--busy-wait").toArray(String[]::new));
    assertEquals(2, missingValue.code(), "picocli usage error");
  }
  @Test
  void clusterFlagsReachTheConfiguration() throws IOException {
    Path hz = Files.writeString(dir.resolve("hz.xml"), "<hazelcast/>");
    Result r = run(args("--print-config", "--cluster", "--cluster-config", hz.toString(),
        "--cluster-host", "10.0.0.5", "--cluster-public-host", "router.example", "--cluster-port",
        "7000").toArray(String[]::new));
    assertEquals(0, r.code(), r.err());
    RouterConfig config = RouterConfig.fromJson(new JsonObject(r.out()));
    assertEquals(true, config.get(ClusterOptions.CLUSTER));
    assertEquals(hz.toString(), config.get(ClusterOptions.CLUSTER_CONFIG));
    assertEquals("10.0.0.5", config.get(ClusterOptions.CLUSTER_HOST));
    assertEquals("router.example", config.get(ClusterOptions.CLUSTER_PUBLIC_HOST));
    assertEquals(7000, config.get(ClusterOptions.CLUSTER_PORT));
  }

  @Test
  void clusterFlagsNeedClusterAndTlsNeedsKeyCertificateAndTrust() throws IOException {
    assertUsageError("--cluster-host needs --cluster", args("--cluster-host", "10.0.0.5"));
    assertUsageError("--attach needs --cluster", args("--attach"));
    Path pem = Files.writeString(dir.resolve("x.pem"), "not checked here");
    assertUsageError("missing: --cluster-trust", args("--cluster", "--cluster-key", pem.toString(),
        "--cluster-cert", pem.toString()));
    assertUsageError("--cluster-config " + dir.resolve("none.xml").toAbsolutePath()
        + " is not a file", args("--cluster", "--cluster-config", dir.resolve("none.xml").toString()));
    Path broken = Files.writeString(dir.resolve("broken.xml"), "<hazelcast><oops/></hazelcast>");
    assertUsageError("is not a Hazelcast configuration", args("--cluster", "--cluster-config",
        broken.toString()));
  }

  @Test
  void anAttachedRouterNeedsNoEndpointsOfItsOwn() {
    // the endpoint ports are another router's (and in use): not checked, not a disagg topology
    Result r = run("router", model.toString(), "--router-port", Integer.toString(routerPort),
        "--cluster", "--attach", "--print-config");
    assertEquals(0, r.code(), r.err());
    assertEquals(true, RouterConfig.fromJson(new JsonObject(r.out())).get(ClusterOptions.ATTACH));
  }

  @Test
  void fleetNamesEveryBusAddress() {
    Result r = run(args("--print-config", "--fleet", "blue").toArray(String[]::new));
    assertEquals(0, r.code(), r.err());
    RouterConfig config = RouterConfig.fromJson(new JsonObject(r.out()));
    assertEquals("blue.completions", config.addresses().completions());
    assertEquals("blue.completions", config.routerOptions().addresses().completions());
    assertEquals("tandem.completions", new RouterConfig().addresses().completions());
    assertUsageError("--fleet must be letters, digits, _, - or . (not first or last), not a b",
        args("--fleet", "a b"));
  }
}
