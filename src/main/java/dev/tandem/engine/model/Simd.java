package dev.tandem.engine.model;

import java.util.Locale;

/**
 * Whether the model's kernels run on the Vector API ({@code jdk.incubator.vector}, an incubator
 * module in JDK 17: present only with {@code --add-modules jdk.incubator.vector}) or on the scalar
 * fallback. Decided once, when this class loads, before any class that names a vector type is
 * touched, so a JVM without the module never tries to load one.
 *
 * <p>{@code -Dtandem.kernels=scalar} forces the fallback (tests, benchmarks). Both paths compute
 * the same bits: see {@link Matmul}.
 */
final class Simd {
  static final String MODULE = "jdk.incubator.vector";
  /** True when the vector kernels are in use. */
  static final boolean VECTOR = detect();
  /**
   * Floats per vector register: the width of the weight panels' halves (a panel is two vectors
   * of output rows). 8 for the scalar path.
   */
  static final int LANES = VECTOR ? VectorMatmul.LANES : 8;

  private Simd() {}

  private static boolean detect() {
    String forced = System.getProperty("tandem.kernels", "auto").toLowerCase(Locale.ROOT);
    if (forced.equals("scalar")) {
      return false;
    }
    return ModuleLayer.boot().findModule(MODULE).isPresent();
  }

  /** For logs and metrics: {@code vector 512-bit}, {@code scalar}. */
  static String describe() {
    return VECTOR ? "vector " + (LANES * 32) + "-bit" : "scalar";
  }
}
