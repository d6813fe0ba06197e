package dev.tandem.bench.model;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/** The vector FMA loop of {@link FmaPeakBench} (loaded only when the Vector API is present). */
final class VectorFmaLoop {
  private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;

  private VectorFmaLoop() {}

  static int lanes() {
    return F.length();
  }

  /**
   * {@link FmaPeakBench#CHAINS} (10) independent accumulator chains: enough to cover the FMA
   * latency on two FMA ports (4 cycles x 2 ports = 8 in flight), fewer than AVX2's 16 registers.
   */
  static double run(long iterations) {
    FloatVector m = FloatVector.broadcast(F, 0.999999f);
    FloatVector c = FloatVector.broadcast(F, 1e-7f);
    FloatVector a0 = FloatVector.broadcast(F, 1f);
    FloatVector a1 = a0;
    FloatVector a2 = a0;
    FloatVector a3 = a0;
    FloatVector a4 = a0;
    FloatVector a5 = a0;
    FloatVector a6 = a0;
    FloatVector a7 = a0;
    FloatVector a8 = a0;
    FloatVector a9 = a0;
    for (long i = 0; i < iterations; i++) {
      a0 = a0.fma(m, c);
      a1 = a1.fma(m, c);
      a2 = a2.fma(m, c);
      a3 = a3.fma(m, c);
      a4 = a4.fma(m, c);
      a5 = a5.fma(m, c);
      a6 = a6.fma(m, c);
      a7 = a7.fma(m, c);
      a8 = a8.fma(m, c);
      a9 = a9.fma(m, c);
    }
    return a0.add(a1).add(a2).add(a3).add(a4).add(a5).add(a6).add(a7).add(a8).add(a9).reduceLanes(
        jdk.incubator.vector.VectorOperators.ADD);
  }
}
