package dev.tandem.engine.model;

/**
 * Scalar float kernels with one fixed reduction order per output element.
 *
 * <p>Every dot product of length n sums lane k = elements i ≡ k (mod 4) of the first n - n % 4
 * in ascending order, combines the lanes as (l0 + l1) + (l2 + l3), then adds the tail in order.
 * The multi-token kernels interleave several tokens against one weight row (so the row is read
 * from memory once) but perform exactly the same operations per token, so a result does not
 * depend on how many tokens were processed together: that is the batch invariance.
 */
final class Kernels {
  private Kernels() {}

  static float dot(float[] a, int ao, float[] b, int bo, int n) {
    float s0 = 0f;
    float s1 = 0f;
    float s2 = 0f;
    float s3 = 0f;
    int n4 = n & ~3;
    int i = 0;
    for (; i < n4; i += 4) {
      s0 += a[ao + i] * b[bo + i];
      s1 += a[ao + i + 1] * b[bo + i + 1];
      s2 += a[ao + i + 2] * b[bo + i + 2];
      s3 += a[ao + i + 3] * b[bo + i + 3];
    }
    float s = (s0 + s1) + (s2 + s3);
    for (; i < n; i++) {
      s += a[ao + i] * b[bo + i];
    }
    return s;
  }

  /** Bytes of token rows kept hot in cache while a block of weight rows is multiplied against them. */
  private static final int TOKEN_TILE_BYTES = 32 << 10;

  /**
   * out[t * outStride + o] = dot(w row o, x row t) for rows {@code o in [rowStart, rowEnd)} and
   * tokens {@code t in [0, numTokens)}; x rows are {@code n} floats apart. Tokens are taken in
   * tiles that stay in cache while every row of the block passes over them (the block's rows stay
   * in cache across tiles), so a long prefill does not stream all tokens once per row.
   */
  static void matmulRows(float[] w, int n, int rowStart, int rowEnd, float[] x, int numTokens,
      float[] out, int outStride) {
    int tile = Math.max(2, (TOKEN_TILE_BYTES / (n * Float.BYTES)) & ~1);
    for (int t0 = 0; t0 < numTokens; t0 += tile) {
      int t1 = Math.min(numTokens, t0 + tile);
      for (int o = rowStart; o < rowEnd; o++) {
        int wo = o * n;
        int t = t0;
        for (; t + 2 <= t1; t += 2) {
          dot2(w, wo, x, t * n, (t + 1) * n, n, out, t * outStride + o, (t + 1) * outStride + o);
        }
        for (; t < t1; t++) {
          out[t * outStride + o] = dot(w, wo, x, t * n, n);
        }
      }
    }
  }

  /** Two dot products against one weight row, each in {@link #dot}'s exact order. */
  private static void dot2(float[] w, int wo, float[] x, int xa, int xb, int n, float[] out, int oa, int ob) {
    float a0 = 0f;
    float a1 = 0f;
    float a2 = 0f;
    float a3 = 0f;
    float b0 = 0f;
    float b1 = 0f;
    float b2 = 0f;
    float b3 = 0f;
    int n4 = n & ~3;
    int i = 0;
    for (; i < n4; i += 4) {
      float w0 = w[wo + i];
      float w1 = w[wo + i + 1];
      float w2 = w[wo + i + 2];
      float w3 = w[wo + i + 3];
      a0 += w0 * x[xa + i];
      a1 += w1 * x[xa + i + 1];
      a2 += w2 * x[xa + i + 2];
      a3 += w3 * x[xa + i + 3];
      b0 += w0 * x[xb + i];
      b1 += w1 * x[xb + i + 1];
      b2 += w2 * x[xb + i + 2];
      b3 += w3 * x[xb + i + 3];
    }
    float a = (a0 + a1) + (a2 + a3);
    float b = (b0 + b1) + (b2 + b3);
    for (; i < n; i++) {
      a += w[wo + i] * x[xa + i];
      b += w[wo + i] * x[xb + i];
    }
    out[oa] = a;
    out[ob] = b;
  }

  private static final float LOG2E = 1.44269504f;
  private static final float LN2_HI = 0.693145752f; // ln 2 split so k * LN2_HI is exact for |k| < 2^8
  private static final float LN2_LO = 1.42860677e-6f;

  /**
   * e^x in float arithmetic only (Cody-Waite reduction, degree-7 Taylor polynomial; within 2 ulp).
   * Unlike {@code Math.exp}, a JIT intrinsic whose last bit may vary by CPU and JVM, every JVM on
   * every machine gives the same bits, so engines on different hosts still agree exactly.
   */
  static float exp(float x) {
    if (!(x > -104f)) {
      return Float.isNaN(x) ? x : 0f;
    }
    if (x > 88.8f) {
      return Float.POSITIVE_INFINITY;
    }
    float kf = (float) Math.floor(x * LOG2E + 0.5f);
    int k = (int) kf;
    float r = (x - kf * LN2_HI) - kf * LN2_LO;
    float p = 1f + r * (1f + r * (0.5f + r * (1f / 6 + r * (1f / 24 + r * (1f / 120 + r * (1f / 720 + r * (1f / 5040)))))));
    if (k < -126) { // result is subnormal: scale in two exact steps
      return p * Float.intBitsToFloat((k + 126 + 127) << 23) * 0x1p-126f;
    }
    if (k > 127) {
      return p * Float.intBitsToFloat((k - 1 + 127) << 23) * 2f;
    }
    return p * Float.intBitsToFloat((k + 127) << 23);
  }
}
