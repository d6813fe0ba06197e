package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bench.BenchOptions;
import dev.tandem.bench.PromptKind;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BenchCommandTest {

  private static int exit(StringWriter err, String... args) {
    CommandLine cl = new CommandLine(new Tandem());
    cl.setErr(new PrintWriter(err));
    return cl.execute(args);
  }

  @Test
  void usageErrorsExitWithTwoAndSayWhatIsWrong() {
    StringWriter err = new StringWriter();
    assertEquals(2, exit(err, "bench", "--url", "http://127.0.0.1:1", "--concurrency", "2", "--rate", "3",
        "--requests", "5"));
    assertTrue(err.toString().contains("exactly one of --concurrency"), err.toString());
    err = new StringWriter();
    assertEquals(2, exit(err, "bench", "--url", "http://127.0.0.1:1", "--concurrency", "2"));
    assertTrue(err.toString().contains("--requests N or --duration"), err.toString());
    err = new StringWriter();
    assertEquals(2, exit(err, "bench", "--url", "http://127.0.0.1:1", "--concurrency", "2", "--requests", "1",
        "--prompt-kind", "ids"));
    assertTrue(err.toString().contains("--vocab-size"), err.toString());
    err = new StringWriter();
    assertEquals(2, exit(err, "bench", "--url", "http://127.0.0.1:1", "--concurrency", "2", "--requests", "1",
        "--output-len", "uniform:5-2"));
    assertTrue(err.toString().contains("invalid length"), err.toString());
    assertEquals(2, exit(new StringWriter(), "bench", "--url", "ftp://x", "--concurrency", "2", "--requests", "1"));
    err = new StringWriter();
    assertEquals(2, exit(err, "bench", "--url", "http://127.0.0.1:1", "--concurrency", "2", "--requests", "1",
        "--api", "chat", "--prompt-kind", "ids", "--vocab-size", "100"));
    assertTrue(err.toString().contains("--api chat sends messages"), err.toString());
    err = new StringWriter();
    assertEquals(2, exit(err, "bench", "--url", "http://127.0.0.1:1", "--concurrency", "2", "--requests", "1",
        "--api", "responses"));
    assertTrue(err.toString().contains("--api must be completions or chat"), err.toString());
  }

  @Test
  void vocabularyFromTheModelFolder(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("config.json"), "{\"vocab_size\": 777, \"hidden_size\": 64}");
    BenchCommand cmd = new BenchCommand();
    new CommandLine(cmd).parseArgs("--url", "http://127.0.0.1:9/", "--rate", "5", "--duration", "2", "--warmup", "3s",
        "--prompt-kind", "ids", "--model-dir", dir.toString(), "--mix", "long=100/4@1", "--mix", "short=8/32@3");
    BenchOptions o = cmd.options();
    assertEquals(PromptKind.IDS, o.workload().promptKind());
    assertEquals(777, o.workload().vocabSize());
    assertEquals(3.0, o.warmupSeconds());
    assertEquals(2, o.workload().classes().size());
    assertTrue(o.openLoop());
  }

  @Test
  void nothingListeningIsAConnectErrorWithExitOne(@TempDir Path dir) throws Exception {
    Path json = dir.resolve("r.json");
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new Tandem());
    cl.setOut(new PrintWriter(out));
    // Port 9 (discard) is closed on loopback in any sane test machine.
    assertEquals(1, cl.execute("bench", "--url", "http://127.0.0.1:9", "--concurrency", "2", "--requests", "3",
        "--quiet", "--model", "m", "--json", json.toString()));
    String text = Files.readString(json);
    assertTrue(text.contains("\"connect\" : 3"), text);
    assertTrue(out.toString().contains("connect") && out.toString().contains("Connection refused"), out.toString());
  }
}
