package dev.tandem.engine.model;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Kernels#exp} and SwiGLU on the Vector API (loaded only when {@link Simd#VECTOR}): the same
 * operations in the same order per lane, the branches as blends, so the same bits.
 */
final class VectorMath {
  private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
  private static final int L = F.length();
  private static final float MAGIC = 0x1.8p23f;
  private static final int MAGIC_BITS = Float.floatToRawIntBits(MAGIC);

  private VectorMath() {}

  static void swiGlu(float[] gu, int g, int n, float[] act, int a) {
    int i = 0;
    for (; i + L <= n; i += L) {
      FloatVector gate = FloatVector.fromArray(F, gu, g + i);
      FloatVector silu = gate.div(exp(gate.neg()).add(1f));
      silu.mul(FloatVector.fromArray(F, gu, g + n + i)).intoArray(act, a + i);
    }
    Kernels.scalarSwiGlu(gu, g, n, act, a, i);
  }

  /** {@link Kernels#exp} lane by lane. */
  static FloatVector exp(FloatVector x) {
    FloatVector y = x.mul(Kernels.LOG2E).add(0.5f);
    // floor(y), exact for |y| < 2^22 (the lanes used): adding 1.5 * 2^23 rounds y to an integer,
    // which then sits in the sum's low mantissa bits; step down where rounding went up. (Float to
    // int conversions are not compiled to vector instructions by JDK 17; this is adds and bits.)
    FloatVector rounded = y.add(MAGIC).sub(MAGIC);
    FloatVector kf = rounded.lanewise(VectorOperators.SUB, 1f, rounded.compare(VectorOperators.GT, y));
    IntVector k = kf.add(MAGIC).reinterpretAsInts().sub(MAGIC_BITS);
    FloatVector r = x.sub(kf.mul(Kernels.LN2_HI)).sub(kf.mul(Kernels.LN2_LO));
    FloatVector p = r.mul(1f / 5040).add(1f / 720);
    p = r.mul(p).add(1f / 120);
    p = r.mul(p).add(1f / 24);
    p = r.mul(p).add(1f / 6);
    p = r.mul(p).add(0.5f);
    p = r.mul(p).add(1f);
    p = r.mul(p).add(1f);
    FloatVector normal = p.mul(pow2(k, 127));
    FloatVector low = p.mul(pow2(k, 126 + 127)).mul(0x1p-126f); // subnormal results, in two exact steps
    FloatVector high = p.mul(pow2(k, -1 + 127)).mul(2f);
    FloatVector e = normal.blend(low, kf.compare(VectorOperators.LT, -126f))
        .blend(high, kf.compare(VectorOperators.GT, 127f));
    VectorMask<Float> notAbove = x.compare(VectorOperators.GT, -104f).not(); // NaN included
    VectorMask<Float> nan = x.compare(VectorOperators.NE, x);
    return e.blend(0f, notAbove).blend(x, nan).blend(Float.POSITIVE_INFINITY, x.compare(VectorOperators.GT, 88.8f));
  }

  /** 2^(k + bias - 127) as float bits (k + bias in 1 .. 254 where the lane is used). */
  private static FloatVector pow2(IntVector k, int bias) {
    return k.add(bias).lanewise(VectorOperators.LSHL, 23).reinterpretAsFloats();
  }
}
