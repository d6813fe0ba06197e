package dev.tandem.engine.model;

/**
 * The matmul without the Vector API: the same per-element order as {@link VectorMatmul} (see
 * {@link Matmul}), so the same bits. Four outputs of a panel are computed together (four
 * independent chains keep the FMA unit busy) over the panel's k-major layout.
 */
final class ScalarMatmul {
  private ScalarMatmul() {}

  static void run(PackedMatrix w, int p0, int p1, float[] x, int t0, int t1, float[] out, int outStride) {
    int width = w.width;
    for (int p = p0; p < p1; p++) {
      int rowBase = p * width;
      int live = Math.min(width, w.rows - rowBase);
      for (int t = t0; t < t1; t++) {
        int xo = t * w.cols;
        int oo = t * outStride + rowBase;
        for (int i = 0; i < live; i += 4) {
          if (w.f32 != null) {
            f32Quad(w, p, i, x, xo, out, oo, live);
          } else {
            halfQuad(w, p, i, x, xo, out, oo, live);
          }
        }
      }
    }
  }

  private static void f32Quad(PackedMatrix w, int p, int i, float[] x, int xo, float[] out, int oo, int live) {
    float[] a = w.f32;
    int width = w.width;
    float s0 = 0f;
    float s1 = 0f;
    float s2 = 0f;
    float s3 = 0f;
    int base = p * w.cols * width + i;
    for (int k = 0; k < w.cols; k++, base += width) {
      float xv = x[xo + k];
      s0 = Math.fma(xv, a[base], s0);
      s1 = Math.fma(xv, a[base + 1], s1);
      s2 = Math.fma(xv, a[base + 2], s2);
      s3 = Math.fma(xv, a[base + 3], s3);
    }
    store(out, oo + i, live - i, s0, s1, s2, s3);
  }

  private static void halfQuad(PackedMatrix w, int p, int i, float[] x, int xo, float[] out, int oo, int live) {
    int[] h = w.half;
    int width = w.width;
    boolean bf16 = w.dtype == SafetensorsDtype.BF16;
    float s0 = 0f;
    float s1 = 0f;
    float s2 = 0f;
    float s3 = 0f;
    int base = p * w.pairs * width + i;
    for (int k = 0; k < w.cols; k++) {
      int at = base + (k >> 1) * width;
      int shift = (k & 1) << 4;
      float xv = x[xo + k];
      s0 = Math.fma(xv, widen((h[at] >>> shift) & 0xffff, bf16), s0);
      s1 = Math.fma(xv, widen((h[at + 1] >>> shift) & 0xffff, bf16), s1);
      s2 = Math.fma(xv, widen((h[at + 2] >>> shift) & 0xffff, bf16), s2);
      s3 = Math.fma(xv, widen((h[at + 3] >>> shift) & 0xffff, bf16), s3);
    }
    store(out, oo + i, live - i, s0, s1, s2, s3);
  }

  private static float widen(int bits, boolean bf16) {
    return bf16 ? Float.intBitsToFloat(bits << 16) : SafetensorsDtype.halfToFloat((short) bits);
  }

  private static void store(float[] out, int at, int n, float s0, float s1, float s2, float s3) {
    out[at] = s0;
    if (n > 1) {
      out[at + 1] = s1;
    }
    if (n > 2) {
      out[at + 2] = s2;
    }
    if (n > 3) {
      out[at + 3] = s3;
    }
  }
}
