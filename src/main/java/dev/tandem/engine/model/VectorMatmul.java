package dev.tandem.engine.model;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The matmul on the Vector API (loaded only when {@link Simd#VECTOR}). A register tile is one
 * panel (two vectors of output rows) by {@link #TILE} tokens: per k it loads the panel's two weight
 * vectors once and multiplies them by each token's broadcast activation into 2 x TILE
 * accumulators. The panel (tens of KB) stays in cache while every token tile passes over it.
 * Per output element this is exactly {@link Matmul#reference}'s chain of FMAs.
 *
 * <p>16-bit weights: one int vector holds the k and k + 1 weights of a vector of rows (see
 * {@link PackedMatrix}); bf16 widens by a shift or a mask inside the tile, f16 by exact integer
 * arithmetic into a scratch panel first.
 */
final class VectorMatmul {
  static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
  static final VectorSpecies<Integer> I = F.vectorShape().withLanes(int.class);
  static final int LANES = F.length();
  /** Tokens per register tile. */
  static final int TILE = 4;
  /**
   * BF16 panels are widened inside the register tile with 512-bit vectors (32 registers hold the
   * tile and the widened weights: measured 144 against 106 GFLOP/s for widening first, one core);
   * with 256-bit vectors (16 registers) the inline tile spills, so prefill widens each panel into
   * scratch first (87 against 37 GFLOP/s). Decode (under two tiles of tokens) always widens inline.
   */
  private static final boolean INLINE_BF16 = LANES >= 16;
  private static final int HIGH_HALF = 0xffff0000;

  private VectorMatmul() {}

  static void run(PackedMatrix w, int p0, int p1, float[] x, int t0, int t1, float[] out, int outStride) {
    if (w.width != 2 * LANES) {
      throw new IllegalStateException("matrix packed for " + w.width + "-row panels, kernels use " + 2 * LANES);
    }
    for (int p = p0; p < p1; p++) {
      int row = p * w.width;
      int live = Math.min(w.width, w.rows - row);
      int t = t0;
      // One kernel per dtype: a shared one with a dtype branch inside grows past what C2 compiles well.
      if (w.dtype == SafetensorsDtype.BF16 && (INLINE_BF16 || t1 - t0 < 2 * TILE)) {
        for (; t + TILE <= t1; t += TILE) {
          bf16Tile(w, p, x, t, out, outStride, row, live);
        }
        for (; t < t1; t++) {
          bf16One(w, p, x, t, out, t * outStride + row, live);
        }
        continue;
      }
      float[] a = w.f32 != null ? w.f32 : widen(w, p);
      int base = w.f32 != null ? p * w.cols * 2 * LANES : 0;
      for (; t + TILE <= t1; t += TILE) {
        f32Tile(a, base, w.cols, x, t, out, outStride, row, live);
      }
      for (; t < t1; t++) {
        f32One(a, base, w.cols, x, t, out, t * outStride + row, live);
      }
    }
  }

  /** Tokens t .. t + 3 against the F32 panel at {@code a[base ..]} ({@code n} k-steps). */
  private static void f32Tile(float[] a, int base, int n, float[] x, int t, float[] out, int outStride, int row,
      int live) {
    int x0 = t * n;
    int x1 = x0 + n;
    int x2 = x1 + n;
    int x3 = x2 + n;
    FloatVector a00 = FloatVector.zero(F);
    FloatVector a01 = a00;
    FloatVector a10 = a00;
    FloatVector a11 = a00;
    FloatVector a20 = a00;
    FloatVector a21 = a00;
    FloatVector a30 = a00;
    FloatVector a31 = a00;
    int wo = base;
    for (int k = 0; k < n; k++, wo += 2 * LANES) {
      FloatVector w0 = FloatVector.fromArray(F, a, wo);
      FloatVector w1 = FloatVector.fromArray(F, a, wo + LANES);
      FloatVector b = FloatVector.broadcast(F, x[x0 + k]);
      a00 = w0.fma(b, a00);
      a01 = w1.fma(b, a01);
      b = FloatVector.broadcast(F, x[x1 + k]);
      a10 = w0.fma(b, a10);
      a11 = w1.fma(b, a11);
      b = FloatVector.broadcast(F, x[x2 + k]);
      a20 = w0.fma(b, a20);
      a21 = w1.fma(b, a21);
      b = FloatVector.broadcast(F, x[x3 + k]);
      a30 = w0.fma(b, a30);
      a31 = w1.fma(b, a31);
    }
    int o = t * outStride + row;
    store(a00, a01, out, o, live);
    store(a10, a11, out, o + outStride, live);
    store(a20, a21, out, o + 2 * outStride, live);
    store(a30, a31, out, o + 3 * outStride, live);
  }

  private static void f32One(float[] a, int base, int n, float[] x, int t, float[] out, int o, int live) {
    int x0 = t * n;
    FloatVector a0 = FloatVector.zero(F);
    FloatVector a1 = a0;
    int wo = base;
    for (int k = 0; k < n; k++, wo += 2 * LANES) {
      FloatVector b = FloatVector.broadcast(F, x[x0 + k]);
      a0 = FloatVector.fromArray(F, a, wo).fma(b, a0);
      a1 = FloatVector.fromArray(F, a, wo + LANES).fma(b, a1);
    }
    store(a0, a1, out, o, live);
  }

  private static void bf16Tile(PackedMatrix w, int p, float[] x, int t, float[] out, int outStride, int row, int live) {
    int[] h = w.half;
    int n = w.cols;
    int x0 = t * n;
    int x1 = x0 + n;
    int x2 = x1 + n;
    int x3 = x2 + n;
    FloatVector a00 = FloatVector.zero(F);
    FloatVector a01 = a00;
    FloatVector a10 = a00;
    FloatVector a11 = a00;
    FloatVector a20 = a00;
    FloatVector a21 = a00;
    FloatVector a30 = a00;
    FloatVector a31 = a00;
    int wo = p * w.pairs * 2 * LANES;
    int even = n & ~1;
    int k = 0;
    for (; k < even; k += 2, wo += 2 * LANES) {
      IntVector v0 = IntVector.fromArray(I, h, wo);
      IntVector v1 = IntVector.fromArray(I, h, wo + LANES);
      FloatVector e0 = v0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
      FloatVector e1 = v1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
      FloatVector b = FloatVector.broadcast(F, x[x0 + k]);
      a00 = e0.fma(b, a00);
      a01 = e1.fma(b, a01);
      b = FloatVector.broadcast(F, x[x1 + k]);
      a10 = e0.fma(b, a10);
      a11 = e1.fma(b, a11);
      b = FloatVector.broadcast(F, x[x2 + k]);
      a20 = e0.fma(b, a20);
      a21 = e1.fma(b, a21);
      b = FloatVector.broadcast(F, x[x3 + k]);
      a30 = e0.fma(b, a30);
      a31 = e1.fma(b, a31);
      FloatVector o0 = v0.lanewise(VectorOperators.AND, HIGH_HALF).reinterpretAsFloats();
      FloatVector o1 = v1.lanewise(VectorOperators.AND, HIGH_HALF).reinterpretAsFloats();
      b = FloatVector.broadcast(F, x[x0 + k + 1]);
      a00 = o0.fma(b, a00);
      a01 = o1.fma(b, a01);
      b = FloatVector.broadcast(F, x[x1 + k + 1]);
      a10 = o0.fma(b, a10);
      a11 = o1.fma(b, a11);
      b = FloatVector.broadcast(F, x[x2 + k + 1]);
      a20 = o0.fma(b, a20);
      a21 = o1.fma(b, a21);
      b = FloatVector.broadcast(F, x[x3 + k + 1]);
      a30 = o0.fma(b, a30);
      a31 = o1.fma(b, a31);
    }
    if (k < n) { // odd length: the last ints hold k alone
      IntVector v0 = IntVector.fromArray(I, h, wo);
      IntVector v1 = IntVector.fromArray(I, h, wo + LANES);
      FloatVector e0 = v0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
      FloatVector e1 = v1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
      a00 = e0.fma(FloatVector.broadcast(F, x[x0 + k]), a00);
      a01 = e1.fma(FloatVector.broadcast(F, x[x0 + k]), a01);
      a10 = e0.fma(FloatVector.broadcast(F, x[x1 + k]), a10);
      a11 = e1.fma(FloatVector.broadcast(F, x[x1 + k]), a11);
      a20 = e0.fma(FloatVector.broadcast(F, x[x2 + k]), a20);
      a21 = e1.fma(FloatVector.broadcast(F, x[x2 + k]), a21);
      a30 = e0.fma(FloatVector.broadcast(F, x[x3 + k]), a30);
      a31 = e1.fma(FloatVector.broadcast(F, x[x3 + k]), a31);
    }
    int o = t * outStride + row;
    store(a00, a01, out, o, live);
    store(a10, a11, out, o + outStride, live);
    store(a20, a21, out, o + 2 * outStride, live);
    store(a30, a31, out, o + 3 * outStride, live);
  }

  private static void bf16One(PackedMatrix w, int p, float[] x, int t, float[] out, int o, int live) {
    int[] h = w.half;
    int n = w.cols;
    int x0 = t * n;
    FloatVector a0 = FloatVector.zero(F);
    FloatVector a1 = a0;
    int wo = p * w.pairs * 2 * LANES;
    int even = n & ~1;
    int k = 0;
    for (; k < even; k += 2, wo += 2 * LANES) {
      IntVector v0 = IntVector.fromArray(I, h, wo);
      IntVector v1 = IntVector.fromArray(I, h, wo + LANES);
      FloatVector b = FloatVector.broadcast(F, x[x0 + k]);
      a0 = v0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(b, a0);
      a1 = v1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(b, a1);
      b = FloatVector.broadcast(F, x[x0 + k + 1]);
      a0 = v0.lanewise(VectorOperators.AND, HIGH_HALF).reinterpretAsFloats().fma(b, a0);
      a1 = v1.lanewise(VectorOperators.AND, HIGH_HALF).reinterpretAsFloats().fma(b, a1);
    }
    if (k < n) {
      FloatVector b = FloatVector.broadcast(F, x[x0 + k]);
      a0 = IntVector.fromArray(I, h, wo).lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(b, a0);
      a1 = IntVector.fromArray(I, h, wo + LANES).lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(b, a1);
    }
    store(a0, a1, out, o, live);
  }

  /**
   * F16 panels (and BF16 ones, see {@link #INLINE_BF16}) are widened into this thread's scratch
   * first and then go through the F32 kernels: the exact f16 conversion is a dozen vector
   * operations, and inlined into a register tile it makes the method too large for C2 to compile
   * well. The widened panel is read from cache once per token tile, so prefill pays the conversion
   * once per panel.
   */
  private static final ThreadLocal<float[]> WIDENED = new ThreadLocal<>();

  private static float[] widen(PackedMatrix w, int p) {
    int need = w.pairs * 4 * LANES; // an odd last k also gets its (zero) high half
    float[] dst = WIDENED.get();
    if (dst == null || dst.length < need) {
      dst = new float[need];
      WIDENED.set(dst);
    }
    int[] h = w.half;
    int src = p * w.pairs * 2 * LANES;
    // Vector j of the panel holds rows (j % 2) * LANES .. + LANES of k = 2 (j / 2) (low halves)
    // and k + 1 (high halves). One conversion per loop body keeps each loop small for C2.
    int vectors = w.pairs * 2;
    if (w.dtype == SafetensorsDtype.BF16) {
      for (int j = 0; j < vectors; j++) {
        int at = (j >> 1) * 4 * LANES + (j & 1) * LANES;
        IntVector v = IntVector.fromArray(I, h, src + j * LANES);
        v.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().intoArray(dst, at);
        v.lanewise(VectorOperators.AND, HIGH_HALF).reinterpretAsFloats().intoArray(dst, at + 2 * LANES);
      }
      return dst; // an odd last k's high half is zero: widened, never read
    }
    for (int j = 0; j < vectors; j++) {
      int at = (j >> 1) * 4 * LANES + (j & 1) * LANES;
      halfToFloat(IntVector.fromArray(I, h, src + j * LANES).lanewise(VectorOperators.AND, 0xffff)).intoArray(dst, at);
    }
    int odd = (w.cols & 1) == 0 ? vectors : vectors - 2; // an odd last k has no high half
    for (int j = 0; j < odd; j++) {
      int at = (j >> 1) * 4 * LANES + 2 * LANES + (j & 1) * LANES;
      halfToFloat(IntVector.fromArray(I, h, src + j * LANES).lanewise(VectorOperators.LSHR, 16)).intoArray(dst, at);
    }
    return dst;
  }

  /**
   * IEEE binary16 bit patterns (one per int lane) to float, exactly as
   * {@link SafetensorsDtype#halfToFloat}: normals by rebiasing the exponent, subnormals by a
   * subtraction that is exact, infinities and NaN (payload kept) by a larger rebias.
   */
  static FloatVector halfToFloat(IntVector h) {
    IntVector magnitude = h.lanewise(VectorOperators.AND, 0x7fff);
    IntVector shifted = magnitude.lanewise(VectorOperators.LSHL, 13);
    IntVector normal = shifted.add(0x38000000); // exponent + (127 - 15)
    IntVector subnormal = shifted.add(0x38800000).reinterpretAsFloats().sub(0x1p-14f).reinterpretAsInts();
    IntVector special = shifted.add(0x70000000); // exponent 31 -> 255
    VectorMask<Integer> isSub = magnitude.compare(VectorOperators.LT, 0x400);
    VectorMask<Integer> isSpecial = magnitude.compare(VectorOperators.GE, 0x7c00);
    IntVector bits = normal.blend(subnormal, isSub).blend(special, isSpecial);
    IntVector sign = h.lanewise(VectorOperators.AND, 0x8000).lanewise(VectorOperators.LSHL, 16);
    return bits.or(sign).reinterpretAsFloats();
  }

  private static void store(FloatVector lo, FloatVector hi, float[] out, int o, int live) {
    if (live == 2 * LANES) {
      lo.intoArray(out, o);
      hi.intoArray(out, o + LANES);
      return;
    }
    for (int i = 0; i < live; i++) {
      out[o + i] = i < LANES ? lo.lane(i) : hi.lane(i - LANES);
    }
  }
}
