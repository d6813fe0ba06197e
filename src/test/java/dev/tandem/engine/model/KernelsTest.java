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
  void batchedMatmulMatchesSingleTokenDotBitForBit() {
    Random r = new Random(3);
    int n = 103;
    int rows = 9;
    float[] w = new float[rows * n];
    float[] x = new float[7 * n];
    for (int i = 0; i < w.length; i++) {
      w[i] = (float) r.nextGaussian();
    }
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) r.nextGaussian();
    }
    for (int tokens = 1; tokens <= 7; tokens++) {
      float[] out = new float[tokens * rows];
      Kernels.matmulRows(w, n, 0, rows, x, tokens, out, rows);
      for (int t = 0; t < tokens; t++) {
        for (int o = 0; o < rows; o++) {
          assertEquals(Float.floatToRawIntBits(Kernels.dot(w, o * n, x, t * n, n)),
              Float.floatToRawIntBits(out[t * rows + o]), "token " + t + " row " + o + " of " + tokens);
        }
      }
    }
  }
}
