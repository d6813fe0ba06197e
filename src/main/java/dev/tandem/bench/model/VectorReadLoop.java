package dev.tandem.bench.model;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The read loop of {@link StreamingReadBench} on the Vector API (loaded only when the module is
 * present): four independent vector sums, so the loop runs far faster than memory can feed it.
 * A plain scalar int sum tops out near 17 GB/s per core, below what a cache can deliver.
 */
final class VectorReadLoop {
  private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;

  private VectorReadLoop() {}

  static int sum(int[] a) {
    int l = I.length();
    IntVector s0 = IntVector.zero(I);
    IntVector s1 = s0;
    IntVector s2 = s0;
    IntVector s3 = s0;
    int i = 0;
    for (; i + 4 * l <= a.length; i += 4 * l) {
      s0 = s0.add(IntVector.fromArray(I, a, i));
      s1 = s1.add(IntVector.fromArray(I, a, i + l));
      s2 = s2.add(IntVector.fromArray(I, a, i + 2 * l));
      s3 = s3.add(IntVector.fromArray(I, a, i + 3 * l));
    }
    int s = s0.add(s1).add(s2).add(s3).reduceLanes(VectorOperators.ADD);
    for (; i < a.length; i++) {
      s += a[i];
    }
    return s;
  }
}
