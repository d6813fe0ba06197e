package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The vector and scalar attention kernels give the same bits (tolerance zero) and follow the documented order. */
class AttentionTest {
  @Test
  void scoresAreOneFmaChainPerPositionOnBothPaths() {
    Random r = new Random(5);
    int headDim = 24;
    for (int n : new int[] {1, 7, 16, 17, 33, 64, 100}) {
      int padded = (n + 63) / 64 * 64;
      float[] q = MatmulTest.gaussian(r, headDim + 3);
      float[] kt = MatmulTest.gaussian(r, headDim * padded + padded);
      float[] vec = kt.clone();
      float[] sca = kt.clone();
      int at = headDim * padded;
      VectorAttention.scores(q, 3, vec, padded, n, headDim, at);
      Attention.scalarScores(q, 3, sca, padded, n, headDim, at);
      for (int j = 0; j < n; j++) {
        float want = 0f;
        for (int d = 0; d < headDim; d++) {
          want = Math.fma(q[3 + d], kt[d * padded + j], want);
        }
        assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(sca[at + j]), "scalar n=" + n + " j=" + j);
        assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(vec[at + j]), "vector n=" + n + " j=" + j);
      }
    }
  }

  @Test
  void weightedValuesMatchOnBothPaths() {
    Random r = new Random(6);
    for (int n : new int[] {3, 16, 64, 80}) {
      float[] v = MatmulTest.gaussian(r, n + 9);
      float[] vec = MatmulTest.gaussian(r, n + 2);
      float[] sca = vec.clone();
      for (int j = 0; j < 5; j++) {
        float p = r.nextFloat();
        VectorAttention.fmaRow(p, v, j, vec, 2, n);
        Attention.scalarFmaRow(p, v, j, sca, 2, n);
      }
      for (int d = 0; d < n + 2; d++) {
        assertEquals(Float.floatToRawIntBits(sca[d]), Float.floatToRawIntBits(vec[d]), "n=" + n + " d=" + d);
      }
    }
  }
}
