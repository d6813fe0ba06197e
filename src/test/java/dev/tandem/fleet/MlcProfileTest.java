package dev.tandem.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tandem.config.EndpointConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The MLC engine command and environment equal what MLC's router hands PopenServer (reference 1.1, 1.7). */
class MlcProfileTest {
  private static final EndpointConfig DECODE_1 =
      new EndpointConfig(1, "127.0.0.1", 8081, 2, 2, dev.tandem.bus.EngineRole.DECODE);

  @Test
  void argvIsTheReferenceCommandWithModelLibAndRadixCache() {
    EngineLaunch launch = new EngineLaunch("/models/Llama-3-8B", "/models/lib.so", DECODE_1, true,
        null, null);
    EngineCommand command = new MlcProfile("/usr/bin/python3", List.of()).command(launch);
    // Reference 1.1, "Concrete argv for router endpoint i", with S_i = 2.
    assertEquals(List.of("/usr/bin/python3", "-m", "mlc_llm", "serve", "/models/Llama-3-8B",
        "--model-lib", "/models/lib.so", "--device", "cuda:2", "--enable-debug", "--mode", "server",
        "--speculative-mode", "disable", "--prefix-cache-mode", "radix", "--overrides",
        "gpu_memory_utilization=0.8;spec_draft_length=0", "--enable-debug", "--host", "127.0.0.1",
        "--port", "8081"), command.argv());
    assertEquals(Map.of(), command.extraEnv(), "round-robin (no world): no init config");
  }

  @Test
  void argvWithoutModelLibAndWithPrefixCacheOff() {
    EngineLaunch launch = new EngineLaunch("HF://mlc-ai/model", null,
        new EndpointConfig(0, "10.0.0.5", 8080, 1, 0, dev.tandem.bus.EngineRole.PREFILL), false,
        null, null);
    assertEquals("python -m mlc_llm serve HF://mlc-ai/model --device cuda:0 --enable-debug --mode"
        + " server --speculative-mode disable --prefix-cache-mode disable --overrides"
        + " gpu_memory_utilization=0.8;spec_draft_length=0 --enable-debug --host 10.0.0.5 --port"
        + " 8080", String.join(" ", new MlcProfile("python", List.of()).command(launch).argv()));
  }

  @Test
  void extraOverridesFollowMlcsAndWrapperPrefixesTheCommand() {
    EngineLaunch launch = new EngineLaunch("m", null, DECODE_1, false, "max_num_sequence=8", null);
    List<String> argv = new MlcProfile("python", List.of("/usr/bin/setpriv", "--pdeathsig", "KILL",
        "--")).command(launch).argv();
    assertEquals(List.of("/usr/bin/setpriv", "--pdeathsig", "KILL", "--", "python", "-m"),
        argv.subList(0, 6));
    assertEquals("gpu_memory_utilization=0.8;spec_draft_length=0;max_num_sequence=8",
        argv.get(argv.indexOf("--overrides") + 1));
  }

  @Test
  void envIsPythonJsonDumpsOfUidNpesPeStart() {
    WorldInit world = new WorldInit(new int[] {65664, -128, 0, 127, -1}, 4);
    EngineLaunch launch = new EngineLaunch("m", null, DECODE_1, false, null, world);
    assertEquals(Map.of("MLC_NVSHMEM_INIT_CONFIG_JSON_STR",
            "{\"uid\": [65664, -128, 0, 127, -1], \"npes\": 4, \"pe_start\": 2}"),
        new MlcProfile("python", List.of()).command(launch).extraEnv());
  }

  @Test
  void envOfA125IntUidEqualsPythonsJsonDumpsByteForByte() throws Exception {
    int[] uid = new int[125];
    uid[0] = 65664;
    for (int i = 1; i < uid.length; i++) {
      uid[i] = (byte) (i * 37 + 11); // signed bytes, as TVM widens C chars on x86-64
    }
    String ours = new WorldInit(uid, 3).initConfigJson(1);
    String python = pythonJsonDumps(uid, 3, 1);
    assertEquals(python, ours);
  }

  /** What MLC's router computes, by Python itself where it is installed. */
  private static String pythonJsonDumps(int[] uid, int npes, int peStart) throws IOException,
      InterruptedException {
    StringBuilder list = new StringBuilder();
    for (int v : uid) {
      list.append(list.length() == 0 ? "" : ",").append(v);
    }
    String script = "import json,sys; print(json.dumps({'uid': [" + list + "], 'npes': " + npes
        + ", 'pe_start': " + peStart + "}), end='')";
    Process p;
    try {
      p = new ProcessBuilder("python3", "-c", script).redirectErrorStream(true).start();
    } catch (IOException e) {
      assumeTrue(false, "python3 not installed: " + e.getMessage());
      throw e;
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assumeTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, "python3 failed: " + out);
    return out;
  }
}
