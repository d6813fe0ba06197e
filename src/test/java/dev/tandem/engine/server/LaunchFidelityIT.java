package dev.tandem.engine.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.world.WorldRoot;
import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TandemJar;
import dev.tandem.testing.TinyModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine launched the way PopenServer launches mlc_llm serve, its usage errors, and its exits. */
class LaunchFidelityIT {
  @TempDir
  static Path tmp;
  static Path model;

  @BeforeAll
  static void tinyModel() {
    model = TinyModel.shared();
  }

  @Test
  void popenServerArgvIsServedWithinTheProbeLimit() throws Exception {
    int port = FreePorts.one();
    // PopenServer's order: model, --model-lib, --device, --enable-debug, --mode, --speculative-mode,
    // --prefix-cache-mode, --overrides, --enable-debug (again), --host, --port
    List<String> cmd = TandemJar.command("384m", "serve", model.toString(),
        "--model-lib", "/nonexistent/model-lib.so", "--device", "cpu:0", "--enable-debug",
        "--mode", "server", "--speculative-mode", "disable", "--prefix-cache-mode", "radix",
        "--overrides", "gpu_memory_utilization=0.8;spec_draft_length=0", "--enable-debug",
        "--host", "127.0.0.1", "--port", Integer.toString(port));
    long start = System.nanoTime();
    try (EngineProcess e = EngineProcess.start(cmd, Map.of(), port)) {
      long readyMs = (System.nanoTime() - start) / 1_000_000;
      assertTrue(readyMs < 60_000, "ready after " + readyMs + " ms; the probe gives up at 120 s");
      assertTrue(e.log().contains("--model-lib /nonexistent/model-lib.so is unused"), e.log());
      assertEquals(model.toString(),
          e.http().get("/v1/models").json().getJsonArray("data").getJsonObject(0).getString("id"));
      HttpJson.Reply r = e.http().post("/v1/completions", "{\"prompt\":\"hi\",\"max_tokens\":3}");
      assertEquals(200, r.status());
      assertTrue(r.json().getJsonObject("usage").getValue("extra") != null, "--enable-debug gives usage.extra");
    }
  }

  @Test
  void usageErrorsExitWith2AndSayWhy() throws Exception {
    String m = model.toString();
    String[][] cases = {
        {"serve", m, "--bogus-flag"},
        {"serve", m, "--overrides", "not_a_key=1"},
        {"serve", m, "--overrides", "max_num_sequence=lots"},
        {"serve", m, "--overrides", "prefill_chunk_size"},
        {"serve", m, "--overrides", "tensor_parallel_shards=0"},
        {"serve", m, "--device", "cuda:0"},
        {"serve", m, "--additional-models", "/some/draft"},
        {"serve", m, "--speculative-mode", "eagle"},
        {"serve", m, "--mode", "turbo"},
        {"serve", m, "--prefix-cache-mode", "lru"},
        {"serve", m, "--port", "notaport"},
        {"serve", tmp.resolve("missing").toString()},
        {"serve"},
    };
    for (String[] args : cases) {
      Path log = Files.createTempFile(tmp, "usage", ".log");
      Process p = TandemJar.process(TandemJar.command("128m", args)).redirectOutput(log.toFile())
          .start();
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), Arrays.toString(args));
      String out = Files.readString(log);
      assertEquals(2, p.exitValue(), Arrays.toString(args) + " -> " + out);
      assertTrue(out.length() > 20, out);
    }
  }

  @Test
  void engineExitsWhenItsParentIsKilled() throws Exception {
    Process parent = new ProcessBuilder("sleep", "300").start();
    try (EngineProcess e = EngineProcess.serve(model, Map.of("TANDEM_PARENT_PID",
        Long.toString(parent.pid())), "--overrides", "max_total_seq_length=2048")) {
      parent.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      assertTrue(e.process().waitFor(15, TimeUnit.SECONDS), "engine outlived its parent:\n" + e.log());
    } finally {
      parent.destroyForcibly();
    }
  }

  @Test
  void deadWorldRootFailsWithAClearMessage() throws Exception {
    int[] uid;
    try (WorldRoot root = WorldRoot.start("127.0.0.1", 1)) {
      uid = root.uid();
    }
    List<String> ints = new ArrayList<>();
    for (int v : uid) {
      ints.add(Integer.toString(v));
    }
    String env = "{\"uid\": [" + String.join(", ", ints) + "], \"npes\": 1, \"pe_start\": 0}";
    Path log = Files.createTempFile(tmp, "world", ".log");
    ProcessBuilder pb = TandemJar.process(TandemJar.command("256m", "serve",
        model.toString(), "--world-join-timeout", "5", "--overrides", "max_total_seq_length=2048",
        "--port", Integer.toString(FreePorts.one()))).redirectOutput(log.toFile());
    pb.environment().put("MLC_NVSHMEM_INIT_CONFIG_JSON_STR", env);
    Process p = pb.start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    String out = Files.readString(log);
    assertEquals(1, p.exitValue(), out);
    assertTrue(out.contains("cannot join the KV world"), out);
  }
}
