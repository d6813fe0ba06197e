package dev.tandem.engine.model;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/** {@link Attention}'s kernels on the Vector API (loaded only when {@link Simd#VECTOR}). */
final class VectorAttention {
  private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
  private static final int L = F.length();

  private VectorAttention() {}

  static int lanes() {
    return L;
  }

  /**
   * Scores of positions {@code [0, n)} from the transposed K ({@code kt[d * padded + j]}, padded
   * to whole vectors) into {@code kt[at ..]}: positions in lanes, one FMA chain per position.
   */
  static void scores(float[] q, int qOff, float[] kt, int padded, int n, int headDim, int at) {
    int j = 0;
    for (; j + 2 * L <= n || (j + L < n && j + 2 * L <= padded); j += 2 * L) {
      FloatVector a0 = FloatVector.zero(F);
      FloatVector a1 = a0;
      for (int d = 0, k = j; d < headDim; d++, k += padded) {
        FloatVector b = FloatVector.broadcast(F, q[qOff + d]);
        a0 = FloatVector.fromArray(F, kt, k).fma(b, a0);
        a1 = FloatVector.fromArray(F, kt, k + L).fma(b, a1);
      }
      a0.intoArray(kt, at + j);
      a1.intoArray(kt, at + j + L);
    }
    for (; j < n; j += L) { // padded holds whole vectors: lanes past n are computed and ignored
      FloatVector a0 = FloatVector.zero(F);
      for (int d = 0, k = j; d < headDim; d++, k += padded) {
        a0 = FloatVector.fromArray(F, kt, k).fma(FloatVector.broadcast(F, q[qOff + d]), a0);
      }
      a0.intoArray(kt, at + j);
    }
  }

  static void fmaRow(float p, float[] v, int vo, float[] acc, int at, int n) {
    FloatVector pv = FloatVector.broadcast(F, p);
    int d = 0;
    for (; d + L <= n; d += L) {
      FloatVector.fromArray(F, v, vo + d).fma(pv, FloatVector.fromArray(F, acc, at + d)).intoArray(acc, at + d);
    }
    for (; d < n; d++) {
      acc[at + d] = Math.fma(p, v[vo + d], acc[at + d]);
    }
  }
}
