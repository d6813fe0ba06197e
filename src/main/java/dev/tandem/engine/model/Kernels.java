package dev.tandem.engine.model;

/**
 * Scalar float kernels for attention, norms and activations, each with one fixed operation order
 * (the matrix products are in {@link Matmul}).
 *
 * <p>{@link #dot} (attention scores, RMS norms) sums lane k = elements i ≡ k (mod 4) of the first
 * n - n % 4 in ascending order, combines the lanes as (l0 + l1) + (l2 + l3), then adds the tail
 * in order; whichever thread or batch it runs in, the result is the same.
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

  /**
   * act[a + i] = silu(gu[g + i]) * gu[g + n + i] for i < n: one token's SwiGLU (gate, then up),
   * silu(x) = x / (1 + exp(-x)). The vector version ({@link VectorMath}) gives the same bits.
   */
  static void swiGlu(float[] gu, int g, int n, float[] act, int a) {
    if (Simd.VECTOR) {
      VectorMath.swiGlu(gu, g, n, act, a);
    } else {
      scalarSwiGlu(gu, g, n, act, a, 0);
    }
  }

  /** The scalar SwiGLU of elements {@code [from, n)}. */
  static void scalarSwiGlu(float[] gu, int g, int n, float[] act, int a, int from) {
    for (int i = from; i < n; i++) {
      float gate = gu[g + i];
      float silu = gate / (1f + exp(-gate));
      act[a + i] = silu * gu[g + n + i];
    }
  }

  static final float LOG2E = 1.44269504f;
  static final float LN2_HI = 0.693145752f; // ln 2 split so k * LN2_HI is exact for |k| < 2^8
  static final float LN2_LO = 1.42860677e-6f;

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
