package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Random;
import org.junit.jupiter.api.Test;

class KernelsTest {
  @Test
  void expIsWithinTwoUlpOfTheTrueValue() {
    Random r = new Random(2);
    for (int i = 0; i < 200_000; i++) {
      float x = (r.nextFloat() * 2 - 1) * 87f;
      double want = Math.exp(x);
      float got = Kernels.exp(x);
      if (Math.abs(got - want) > 2 * Math.ulp((float) want)) {
        fail("exp(" + x + ") = " + got + ", want " + want);
      }
    }
  }

  @Test
  void expEdgeCases() {
    assertEquals(1f, Kernels.exp(0f));
    assertEquals(1f, Kernels.exp(-0f));
    assertEquals(0f, Kernels.exp(-200f));
    assertEquals(0f, Kernels.exp(Float.NEGATIVE_INFINITY));
    assertEquals(Float.POSITIVE_INFINITY, Kernels.exp(100f));
    assertEquals(Float.POSITIVE_INFINITY, Kernels.exp(Float.POSITIVE_INFINITY));
    assertTrue(Float.isNaN(Kernels.exp(Float.NaN)));
    float sub = Kernels.exp(-100f); // 3.7e-44, subnormal
    assertEquals(Math.exp(-100), sub, 2 * Float.MIN_VALUE);
    assertEquals(Math.exp(88.5), Kernels.exp(88.5f), 2 * Math.ulp((float) Math.exp(88.5)));
  }

  @Test
  void vectorExpAndSwiGluGiveTheScalarBits() {
    Random r = new Random(12);
    int n = 1 << 16;
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = switch (i % 4) {
        case 0 -> (r.nextFloat() * 2 - 1) * 110f;
        case 1 -> (float) r.nextGaussian() * 4;
        case 2 -> Float.intBitsToFloat(r.nextInt()); // any float: NaNs, infinities, huge, tiny
        default -> -104f + (r.nextFloat() - 0.5f) * 1e-3f * (i % 7) + 88.8f * (i % 3 == 0 ? 1 : 0);
      };
    }
    float[] edges = {0f, -0f, -104f, Math.nextUp(-104f), 88.8f, Math.nextUp(88.8f), -87.4f, -100f, 88.7f,
        Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MAX_VALUE, -Float.MAX_VALUE, 1e-40f};
    System.arraycopy(edges, 0, x, 0, edges.length);
    int lanes = jdk.incubator.vector.FloatVector.SPECIES_PREFERRED.length();
    float[] got = new float[lanes];
    for (int i = 0; i + lanes <= n; i += lanes) {
      VectorMath.exp(jdk.incubator.vector.FloatVector.fromArray(jdk.incubator.vector.FloatVector.SPECIES_PREFERRED, x, i))
          .intoArray(got, 0);
      for (int j = 0; j < lanes; j++) {
        float want = Kernels.exp(x[i + j]);
        if (Float.floatToRawIntBits(want) != Float.floatToRawIntBits(got[j])) {
          fail("exp(" + x[i + j] + "): vector " + got[j] + ", scalar " + want);
        }
      }
    }
    float[] gu = new float[2 * 1000 + 3];
    for (int i = 0; i < gu.length; i++) {
      gu[i] = (float) r.nextGaussian() * 6;
    }
    float[] vec = new float[1000];
    float[] sca = new float[1000];
    VectorMath.swiGlu(gu, 3, 1000, vec, 0);
    Kernels.scalarSwiGlu(gu, 3, 1000, sca, 0, 0);
    for (int i = 0; i < 1000; i++) {
      assertEquals(Float.floatToRawIntBits(sca[i]), Float.floatToRawIntBits(vec[i]), "swiGlu " + i);
    }
  }
}
