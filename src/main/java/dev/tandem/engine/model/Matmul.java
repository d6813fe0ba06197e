package dev.tandem.engine.model;

/**
 * {@code out[t * outStride + o] = sum_k x[t * cols + k] * W[o][k]} over a block of panels and
 * tokens, on the vector kernels ({@link VectorMatmul}) or the scalar fallback
 * ({@link ScalarMatmul}).
 *
 * <p><b>One reduction order, everywhere.</b> Every output element is one chain of fused
 * multiply-adds in ascending k, starting from +0: {@code s = fma(x[k], W[o][k], s)} for
 * k = 0 .. cols-1 ({@link #reference}). The vector kernels put different <em>outputs</em> in
 * different lanes (a panel's rows), never different k of one output, so there is no horizontal
 * sum, and the order of one element's operations does not depend on the vector width, the tile of
 * tokens it was computed in, the thread, or the batch. The vector kernels (any width) and the
 * scalar fallback therefore give the same bits (tolerance zero, tested bit for bit), a token's
 * result is the same alone or batched (batch invariance), and engines on machines with different
 * SIMD widths, or with and without the Vector API, agree exactly. BF16/F16 weights are widened
 * exactly before the multiply, so a 16-bit matrix gives the bits its F32 widening would.
 */
final class Matmul {
  private Matmul() {}

  /** Panels {@code [p0, p1)} of {@code w} against token rows {@code [t0, t1)} of {@code x}. */
  static void run(PackedMatrix w, int p0, int p1, float[] x, int t0, int t1, float[] out, int outStride) {
    if (Simd.VECTOR) {
      VectorMatmul.run(w, p0, p1, x, t0, t1, out, outStride);
    } else {
      ScalarMatmul.run(w, p0, p1, x, t0, t1, out, outStride);
    }
  }

  /** The defining order, on a row-major matrix: the tests' reference for both kernels. */
  static float reference(float[] w, int wo, float[] x, int xo, int n) {
    float s = 0f;
    for (int k = 0; k < n; k++) {
      s = Math.fma(x[xo + k], w[wo + k], s);
    }
    return s;
  }
}
