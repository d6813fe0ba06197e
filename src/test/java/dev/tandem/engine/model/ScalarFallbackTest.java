package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM without {@code jdk.incubator.vector} runs the scalar kernels, and they compute the same
 * bits as the vector kernels of this JVM: every logit and K/V value of a prefill and some decode
 * steps, for F32, BF16 and F16 weights, and for every family (F32, and Qwen3 in BF16).
 */
class ScalarFallbackTest {
  @TempDir
  Path dir;

  @Test
  @Timeout(120)
  void aJvmWithoutTheVectorModuleComputesTheSameBits() throws Exception {
    assertTrue(Simd.VECTOR, "this test JVM runs with --add-modules jdk.incubator.vector (surefire argLine)");
    List<String> models = new ArrayList<>();
    for (SafetensorsDtype dtype : SafetensorsDtype.values()) {
      Path m = dir.resolve(dtype.name());
      RandomModelWriter.write(m, LlamaForwardTest.ODD, 4, dtype);
      models.add(m.toString());
    }
    for (LlamaConfig c : List.of(FamilyForwardTest.LLAMA3, FamilyForwardTest.QWEN2, FamilyForwardTest.QWEN3)) {
      Path m = dir.resolve(c.family() + "-" + (c.ropeScaling() != null));
      RandomModelWriter.write(m, c, 4, SafetensorsDtype.F32);
      TestModels.rewriteFamily(m, 10f);
      models.add(m.toString());
    }
    Path qwen3Bf16 = dir.resolve("qwen3-bf16");
    RandomModelWriter.write(qwen3Bf16, FamilyForwardTest.QWEN3, 4, SafetensorsDtype.BF16);
    models.add(qwen3Bf16.toString());
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        Digest.class.getName()));
    cmd.addAll(models);
    Path out = dir.resolve("child.txt");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    assertTrue(p.waitFor(100, TimeUnit.SECONDS), "child JVM finished");
    String child = Files.readString(out, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), child);
    assertTrue(child.contains("kernels: scalar"), child);
    assertEquals(Digest.digests(models.toArray(String[]::new)), child.substring(child.indexOf("digests:")).trim());
  }

  /** Runs in the child JVM: prints which kernels it uses and a digest of each model's results. */
  public static final class Digest {
    public static void main(String[] args) throws Exception {
      System.out.println("kernels: " + Simd.describe());
      System.out.println(digests(args));
    }

    static String digests(String... models) throws Exception {
      StringBuilder b = new StringBuilder("digests:");
      for (String m : models) {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        try (LlamaModel model = LlamaModel.load(Path.of(m), 2)) {
          LlamaConfig c = model.config();
          ArrayKvStore kv = new ArrayKvStore(c, 40);
          int[] slots = new int[40];
          for (int i = 0; i < slots.length; i++) {
            slots[i] = 39 - i;
          }
          int[] prompt = new java.util.Random(3).ints(21, 0, c.vocabSize()).toArray();
          update(sha, model.forward(List.of(new ForwardChunk(prompt, 0, slots, true)), kv)[0]);
          for (int s = 0; s < 5; s++) {
            update(sha, model.forward(List.of(new ForwardChunk(new int[] {s + 1}, 21 + s, slots, true)), kv)[0]);
          }
          for (int l = 0; l < c.numLayers(); l++) {
            update(sha, kv.keys(l));
            update(sha, kv.values(l));
          }
        }
        b.append(' ').append(HexFormat.of().formatHex(sha.digest(), 0, 12));
      }
      return b.toString();
    }

    private static void update(MessageDigest sha, float[] v) {
      for (float f : v) {
        int bits = Float.floatToRawIntBits(f);
        sha.update(new byte[] {(byte) bits, (byte) (bits >> 8), (byte) (bits >> 16), (byte) (bits >> 24)});
      }
    }
  }
}
