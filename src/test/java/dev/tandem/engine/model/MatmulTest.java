package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Random;
import jdk.incubator.vector.IntVector;
import org.junit.jupiter.api.Test;

/**
 * The vector kernels, the scalar fallback and the defining order ({@link Matmul#reference}) give
 * the same bits for every dtype, shape, token tile and block of panels: the documented tolerance
 * between them is zero.
 */
class MatmulTest {
  private static final int WIDTH = 2 * VectorMatmul.LANES;

  @Test
  void vectorScalarAndReferenceAgreeBitForBit() {
    Random r = new Random(7);
    int[][] shapes = {{WIDTH, 64}, {3 * WIDTH + 5, 103}, {7, 1}, {WIDTH - 1, 2}, {2 * WIDTH, 577}};
    for (SafetensorsDtype dtype : SafetensorsDtype.values()) {
      for (int[] shape : shapes) {
        int rows = shape[0];
        int cols = shape[1];
        RawTensor raw = random(r, dtype, rows, cols);
        PackedMatrix w = PackedMatrix.pack(WIDTH, raw);
        float[] widened = raw.toFloats();
        for (int tokens : new int[] {1, 3, 4, 5, 9}) {
          float[] x = gaussian(r, tokens * cols);
          float[] vec = new float[tokens * rows];
          float[] sca = new float[tokens * rows];
          VectorMatmul.run(w, 0, w.panels, x, 0, tokens, vec, rows);
          ScalarMatmul.run(w, 0, w.panels, x, 0, tokens, sca, rows);
          for (int t = 0; t < tokens; t++) {
            for (int o = 0; o < rows; o++) {
              int want = Float.floatToRawIntBits(Matmul.reference(widened, o * cols, x, t * cols, cols));
              String where = dtype + " " + rows + "x" + cols + " token " + t + "/" + tokens + " row " + o;
              assertEquals(want, Float.floatToRawIntBits(vec[t * rows + o]), "vector " + where);
              assertEquals(want, Float.floatToRawIntBits(sca[t * rows + o]), "scalar " + where);
            }
          }
        }
      }
    }
  }

  /** A token's outputs do not depend on the tile it was computed in nor on the panels computed with it. */
  @Test
  void blocksOfPanelsAndTokensGiveTheWholeProduct() {
    Random r = new Random(8);
    int rows = 5 * WIDTH;
    int cols = 96;
    PackedMatrix w = PackedMatrix.pack(WIDTH, random(r, SafetensorsDtype.BF16, rows, cols));
    float[] x = gaussian(r, 11 * cols);
    float[] whole = new float[11 * rows];
    VectorMatmul.run(w, 0, w.panels, x, 0, 11, whole, rows);
    float[] pieces = new float[11 * rows];
    for (int p = 0; p < w.panels; p++) {
      VectorMatmul.run(w, p, p + 1, x, 0, 2, pieces, rows);
      VectorMatmul.run(w, p, p + 1, x, 2, 7, pieces, rows);
      VectorMatmul.run(w, p, p + 1, x, 7, 11, pieces, rows);
    }
    for (int i = 0; i < whole.length; i++) {
      assertEquals(Float.floatToRawIntBits(whole[i]), Float.floatToRawIntBits(pieces[i]), "element " + i);
    }
  }

  @Test
  void vectorHalfWideningIsExactForEveryPattern() {
    int lanes = VectorMatmul.I.length();
    int[] bits = new int[lanes];
    float[] got = new float[lanes];
    for (int base = 0; base < 1 << 16; base += lanes) {
      for (int i = 0; i < lanes; i++) {
        bits[i] = base + i;
      }
      VectorMatmul.halfToFloat(IntVector.fromArray(VectorMatmul.I, bits, 0)).intoArray(got, 0);
      for (int i = 0; i < lanes; i++) {
        int want = Float.floatToRawIntBits(SafetensorsDtype.halfToFloat((short) bits[i]));
        if (want != Float.floatToRawIntBits(got[i])) {
          fail(String.format("half 0x%04x: got 0x%08x, want 0x%08x", bits[i], Float.floatToRawIntBits(got[i]), want));
        }
      }
    }
  }

  @Test
  void packedMatrixKeepsSixteenBitWeightsAndReadsThemBack() {
    Random r = new Random(9);
    RawTensor raw = random(r, SafetensorsDtype.BF16, 37, 9);
    PackedMatrix w = PackedMatrix.pack(WIDTH, raw);
    assertEquals(SafetensorsDtype.BF16, w.dtype);
    assertEquals(37L * 9 * 2, w.bytes());
    assertTrue(w.f32 == null && w.half.length == w.panels * 5 * WIDTH, "two weights per int");
    float[] row = new float[9];
    for (int o = 0; o < 37; o++) {
      w.row(o, row, 0);
      for (int k = 0; k < 9; k++) {
        assertEquals(raw.get(o, k), row[k]);
      }
    }
    PackedMatrix mixed = PackedMatrix.pack(WIDTH, raw, random(r, SafetensorsDtype.F32, 3, 9));
    assertEquals(SafetensorsDtype.F32, mixed.dtype, "mixed dtypes are widened");
    assertEquals(raw.get(36, 8), mixed.get(36, 8));
  }

  static RawTensor random(Random r, SafetensorsDtype dtype, int rows, int cols) {
    float[] f = gaussian(r, rows * cols);
    if (dtype == SafetensorsDtype.F32) {
      return new RawTensor(dtype, rows, cols, f, null);
    }
    short[] bits = new short[f.length];
    for (int i = 0; i < f.length; i++) {
      bits[i] = dtype == SafetensorsDtype.BF16 ? SafetensorsDtype.floatToBf16(f[i]) : SafetensorsDtype.floatToHalf(f[i]);
    }
    bits[0] = (short) 0x0001; // a subnormal half / a tiny bf16
    return new RawTensor(dtype, rows, cols, null, bits);
  }

  static float[] gaussian(Random r, int n) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = (float) r.nextGaussian();
    }
    return v;
  }
}
