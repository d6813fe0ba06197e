package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading what {@link RandomModelWriter} writes, in each dtype. */
class ModelLoadTest {
  @TempDir
  Path tmp;

  @Test
  void f32RoundTripKeepsEveryValue() throws Exception {
    LlamaConfig c = ModelPreset.TINY.config();
    RandomModelWriter.write(tmp, c, 5, SafetensorsDtype.F32);
    LlamaWeights w = LlamaWeights.load(tmp);
    assertEquals(c, w.config);
    assertSame(w.embed, w.lmHead, "tied embeddings share one matrix");
    float[] embed = unpacked(w.embed);
    try (SafetensorsFile f = SafetensorsFile.open(tmp.resolve("model.safetensors"))) {
      assertArrayEquals(f.readFloats("model.embed_tokens.weight", null), embed);
      float[] q = f.readFloats("model.layers.2.self_attn.q_proj.weight", null);
      float[] k = f.readFloats("model.layers.2.self_attn.k_proj.weight", null);
      float[] fused = unpacked(w.layers[2].wqkv());
      for (int i = 0; i < q.length; i++) {
        assertEquals(q[i], fused[i]);
      }
      for (int i = 0; i < k.length; i++) {
        assertEquals(k[i], fused[q.length + i]);
      }
    }
    double sum = 0;
    double sq = 0;
    for (float v : embed) {
      sum += v;
      sq += v * v;
    }
    assertEquals(0.0, sum / embed.length, 0.001);
    assertEquals(0.02, Math.sqrt(sq / embed.length), 0.001, "init std");
    assertEquals(1f, w.finalNorm[0]);
  }

  @Test
  void bf16AndF16LoadTheRoundedValues() throws Exception {
    LlamaConfig c = ModelPreset.TINY.config();
    RandomModelWriter.write(tmp.resolve("f32"), c, 9, SafetensorsDtype.F32);
    RandomModelWriter.write(tmp.resolve("bf16"), c, 9, SafetensorsDtype.BF16);
    RandomModelWriter.write(tmp.resolve("f16"), c, 9, SafetensorsDtype.F16);
    LlamaWeights full = LlamaWeights.load(tmp.resolve("f32"));
    LlamaWeights bf = LlamaWeights.load(tmp.resolve("bf16"));
    LlamaWeights half = LlamaWeights.load(tmp.resolve("f16"));
    assertEquals(SafetensorsDtype.BF16, bf.dtype, "bf16 matrices stay bf16");
    assertEquals(SafetensorsDtype.F16, half.dtype);
    assertEquals(SafetensorsDtype.F32, full.dtype);
    assertEquals(full.weightBytes - bf.weightBytes, bf.weightBytes - normBytes(c), "16-bit matrices are half the bytes");
    float[] a = unpacked(full.layers[1].wDown());
    float[] b = unpacked(bf.layers[1].wDown());
    float[] h = unpacked(half.layers[1].wDown());
    for (int i = 0; i < a.length; i++) {
      assertEquals(Float.intBitsToFloat(SafetensorsDtype.floatToBf16(a[i]) << 16), b[i]);
      assertEquals(SafetensorsDtype.halfToFloat(SafetensorsDtype.floatToHalf(a[i])), h[i]);
      assertEquals(a[i], h[i], Math.abs(a[i]) / 1024 + 1e-7);
    }
    assertNotEquals(full.fingerprint, bf.fingerprint);
  }

  @Test
  void halfConversionHandlesEdgeCases() {
    float[] exact = {0f, -0f, 1f, -2.5f, 65504f, 0x1p-24f, 0x1p-14f, 3 * 0x1p-24f};
    for (float f : exact) {
      assertEquals(Float.floatToIntBits(f), Float.floatToIntBits(SafetensorsDtype.halfToFloat(SafetensorsDtype.floatToHalf(f))));
    }
    assertEquals(Float.POSITIVE_INFINITY, SafetensorsDtype.halfToFloat(SafetensorsDtype.floatToHalf(70000f)));
    assertEquals(1f, SafetensorsDtype.halfToFloat(SafetensorsDtype.floatToHalf(1f + 0x1p-12f)), "ties round to even");
    assertEquals(1f + 0x1p-10f, SafetensorsDtype.halfToFloat(SafetensorsDtype.floatToHalf(1f + 0x1.8p-11f)));
    assertEquals(1f, Float.intBitsToFloat(SafetensorsDtype.floatToBf16(1f + 0x1p-8f) << 16), "bf16 ties round to even");
  }

  @Test
  void fingerprintIsStableAndDependsOnWeights() throws Exception {
    LlamaConfig c = ModelPreset.TINY.config();
    RandomModelWriter.write(tmp.resolve("a"), c, 1, SafetensorsDtype.F32);
    RandomModelWriter.write(tmp.resolve("b"), c, 1, SafetensorsDtype.F32);
    RandomModelWriter.write(tmp.resolve("c"), c, 2, SafetensorsDtype.F32);
    try (LlamaModel a = LlamaModel.load(tmp.resolve("a"), 1); LlamaModel b = LlamaModel.load(tmp.resolve("b"), 1);
        LlamaModel d = LlamaModel.load(tmp.resolve("c"), 1)) {
      assertEquals(64, a.fingerprint().length());
      assertEquals(a.fingerprint(), b.fingerprint());
      assertNotEquals(a.fingerprint(), d.fingerprint());
    }
  }

  /** Row-major floats of a packed matrix. */
  static float[] unpacked(PackedMatrix m) {
    float[] out = new float[m.rows * m.cols];
    for (int r = 0; r < m.rows; r++) {
      m.row(r, out, r * m.cols);
    }
    return out;
  }

  /** Bytes of the norm weights (always floats). */
  private static long normBytes(LlamaConfig c) {
    return (2L * c.numLayers() + 1) * c.hiddenSize() * Float.BYTES;
  }
}
