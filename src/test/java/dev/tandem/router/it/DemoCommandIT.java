package dev.tandem.router.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TandemJar;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tandem demo} as a user runs it: makes the tiny model, starts 1 prefill + 2 decode engines
 * behind the router, streams a sample answer, prints a curl line, serves, and Ctrl-C (SIGINT)
 * stops every process it started.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DemoCommandIT {

  @TempDir Path dir;

  @Test
  void demoStreamsASampleServesAndCtrlCStopsEverything() throws Exception {
    int[] ports = FreePorts.of(4);
    Path out = dir.resolve("demo.out");
    Process demo = TandemJar.process(TandemJar.command("384m", "demo", "--model-dir",
        dir.resolve("models/tiny").toString(), "--log-dir", dir.resolve("logs").toString(),
        "--router-port", Integer.toString(ports[3]), "--endpoint-ports", Integer.toString(ports[0]),
        Integer.toString(ports[1]), Integer.toString(ports[2])))
        .redirectOutput(out.toFile()).start();
    try {
      TandemFleet.waitUntil(() -> read(out).contains("curl -N") || !demo.isAlive(), 100_000, "the demo's sample");
      String console = read(out);
      assertTrue(demo.isAlive(), console);
      assertTrue(console.contains("made the tiny model"), console);
      String answer = console.lines().filter(l -> l.startsWith("Answer:")).findFirst().orElse("");
      assertTrue(answer.length() > "Answer:".length() + 5, "a streamed answer: " + answer);
      assertTrue(console.contains("The tiny model's weights are random"), console);
      assertTrue(console.contains("curl -N http://127.0.0.1:" + ports[3] + "/v1/completions"), console);

      List<ProcessHandle> children = new ArrayList<>(demo.descendants().toList());
      assertTrue(children.size() >= 3, "three engine processes: " + children);
      // still serving after the sample
      var r = java.net.http.HttpClient.newBuilder()
          .version(java.net.http.HttpClient.Version.HTTP_1_1).build().send(java.net.http.HttpRequest.newBuilder(
          java.net.URI.create("http://127.0.0.1:" + ports[3] + "/ready")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), r.body());
      String signal = ignoresSigint(demo.pid()) ? "-TERM" : "-INT";
      new ProcessBuilder("kill", signal, Long.toString(demo.pid())).start().waitFor();
      assertTrue(demo.waitFor(30, TimeUnit.SECONDS), "demo exits on kill " + signal);
      for (ProcessHandle child : children) {
        assertFalse(child.isAlive(), "left behind: " + child.pid() + " " + child.info().commandLine());
      }
      assertTrue(Files.isRegularFile(dir.resolve("models/tiny/model.safetensors")));
    } finally {
      demo.descendants().forEach(ProcessHandle::destroyForcibly);
      demo.destroyForcibly();
    }
  }

  /**
   * Whether the process inherited SIGINT as ignored: a suite started in the background of a
   * non-interactive shell ({@code mvn verify &}) passes that on, and a JVM that starts with SIGINT
   * ignored never handles it. Ctrl-C in a terminal cannot meet that case; the test then sends
   * SIGTERM, which runs the same shutdown hook.
   */
  private static boolean ignoresSigint(long pid) throws java.io.IOException {
    String ignored = Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
        .filter(l -> l.startsWith("SigIgn:")).map(l -> l.substring("SigIgn:".length()).trim())
        .findFirst().orElse("0");
    return (Long.parseUnsignedLong(ignored, 16) & (1L << 1)) != 0; // bit SIGINT-1
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    } catch (java.io.IOException e) {
      return "";
    }
  }
}
