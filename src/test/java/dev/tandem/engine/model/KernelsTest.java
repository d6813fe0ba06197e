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
}
