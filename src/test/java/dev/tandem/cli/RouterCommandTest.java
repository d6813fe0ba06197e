package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    assertEquals(List.of(p1, p2, p3), config.getEndpointPorts());
    assertEquals(0.5, config.getPdBalanceFactor());
    assertEquals(250, config.getHealthInterval().toMillis());
    assertEquals(List.of("-Xmx256m", "-Xss1m"), config.getEngineJvmOpts());
    assertEquals(model.toString(), config.getModel());
  }

  @Test
  void configFileIsReadAndFlagsOverrideIt() throws IOException {
    RouterConfig fileConfig = new RouterConfig().setModel(model.toString())
        .setEndpointPorts(List.of(p1, p2)).setRouterPort(routerPort).setLogDir("/tmp/from-file");
    Path file = dir.resolve("router.json");
    Files.writeString(file, fileConfig.toJson().encodePrettily());
    Result r = run("router", "--config", file.toString(), "--log-dir", "/tmp/from-flag",
        "--print-config");
    assertEquals(0, r.code(), r.err());
    RouterConfig config = RouterConfig.fromJson(new JsonObject(r.out()));
    assertEquals("/tmp/from-flag", config.getLogDir());
    assertEquals(List.of(p1, p2), config.getEndpointPorts());
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
    assertUsageError("router mode must be disagg or round-robin", args("--router-mode", "fast"));
    assertUsageError("engine must be builtin, mlc or sim", args("--engine", "vllm"));
    assertUsageError("policy must be cache-aware or least-loaded", args("--policy", "random"));
    assertUsageError("pdPolicy must be static or adaptive", args("--pd-policy", "always"));
    assertUsageError("endpoint role must be prefill, decode or both", args("--endpoint-roles", "p", "d", "d"));
    Result notANumber = run(args("--router-port", "eighty").toArray(String[]::new));
    assertEquals(2, notANumber.code(), "picocli usage error");
  }
}
