package dev.tandem.engine.model;

/**
 * Causal grouped-query attention for a block of consecutive query tokens of one sequence and the
 * query heads that share one KV head, with one fixed operation order per result, on the Vector API
 * ({@link VectorAttention}) or scalar: the same bits either way.
 *
 * <ul>
 *   <li>Score of position j: a chain of FMAs q[d] * K[j][d] in ascending d from +0, times the scale.
 *       The block first copies its K rows transposed (d-major) into scratch, so the vector kernel
 *       puts positions in lanes and never sums across lanes, exactly like {@link Matmul}.
 *   <li>Softmax: max, then e_j = exp(s_j - max) and their sum in ascending j, then
 *       p_j = e_j * (1 / sum).
 *   <li>Output element d: a chain of FMAs p_j * V[j][d] in ascending j from +0 (vectors across d).
 * </ul>
 * Nothing depends on which tokens share the block, so a token's output is the same alone or in
 * any batch or chunking.
 */
final class Attention {
  static final boolean VECTOR = Simd.VECTOR;
  /** Positions are padded to a multiple of this in the transposed K: whole vectors of positions. */
  private static final int PAD = VECTOR ? Math.max(16, VectorAttention.lanes()) : 16;
  /** Query tokens per attention task: they share one transposed copy of the K rows. */
  static final int TOKEN_BLOCK = 16;

  private Attention() {}

  /** Scratch floats {@link #block} needs for a block whose last position is {@code lastPos}. */
  static int scratchFloats(int headDim, int lastPos) {
    int padded = padded(lastPos + 1);
    return headDim * padded + padded + headDim;
  }

  private static int padded(int positions) {
    return (positions + PAD - 1) / PAD * PAD;
  }

  /**
   * Attention of query tokens {@code [tokFrom, tokTo)} of the batch (positions {@code firstPos ..}
   * of one sequence, rows of {@code qkv} {@code qkvDim} apart) for the {@code group} query heads of
   * KV head {@code kvHead}; writes each head's output into {@code att} (rows {@code qDim} apart).
   * K/V row of position j: {@code slots[j] * kvDim + kvHead * headDim}. {@code scratch} is this
   * thread's own (at least {@link #scratchFloats}): results are computed there and stored whole,
   * so two runs of one task at once store the same values.
   */
  static void block(float[] qkv, int qkvDim, int tokFrom, int tokTo, int firstPos, int[] slots, float[] keys,
      float[] values, int kvDim, int kvHead, int group, int headDim, float scale, float[] scratch, float[] att,
      int qDim) {
    int positions = firstPos + (tokTo - tokFrom);
    int padded = padded(positions);
    int kvOff = kvHead * headDim;
    int scores = headDim * padded;
    int acc = scores + padded;
    for (int j = 0; j < positions; j++) { // K rows, transposed: scratch[d * padded + j]
      int row = slots[j] * kvDim + kvOff;
      for (int d = 0; d < headDim; d++) {
        scratch[d * padded + j] = keys[row + d];
      }
    }
    for (int tok = tokFrom; tok < tokTo; tok++) {
      int pos = firstPos + (tok - tokFrom);
      for (int h = 0; h < group; h++) {
        int head = kvHead * group + h;
        int qOff = tok * qkvDim + head * headDim;
        if (VECTOR) {
          VectorAttention.scores(qkv, qOff, scratch, padded, pos + 1, headDim, scores);
        } else {
          scalarScores(qkv, qOff, scratch, padded, pos + 1, headDim, scores);
        }
        float max = Float.NEGATIVE_INFINITY;
        for (int j = 0; j <= pos; j++) {
          float s = scratch[scores + j] * scale;
          scratch[scores + j] = s;
          max = Math.max(max, s);
        }
        float sum = 0f;
        for (int j = 0; j <= pos; j++) {
          float e = Kernels.exp(scratch[scores + j] - max);
          scratch[scores + j] = e;
          sum += e;
        }
        float inv = 1f / sum;
        java.util.Arrays.fill(scratch, acc, acc + headDim, 0f);
        for (int j = 0; j <= pos; j++) {
          fmaRow(scratch[scores + j] * inv, values, slots[j] * kvDim + kvOff, scratch, acc, headDim);
        }
        System.arraycopy(scratch, acc, att, tok * qDim + head * headDim, headDim);
      }
    }
  }

  /** out[at + j] = chain of fma(q[d], kt[d * padded + j]) over d, for j < n. */
  static void scalarScores(float[] q, int qOff, float[] kt, int padded, int n, int headDim, int at) {
    for (int j = 0; j < n; j++) {
      float s = 0f;
      for (int d = 0; d < headDim; d++) {
        s = Math.fma(q[qOff + d], kt[d * padded + j], s);
      }
      kt[at + j] = s;
    }
  }

  /** acc[at + d] = fma(p, v[vo + d], acc[at + d]) for d < n. */
  static void fmaRow(float p, float[] v, int vo, float[] acc, int at, int n) {
    if (VECTOR) {
      VectorAttention.fmaRow(p, v, vo, acc, at, n);
    } else {
      scalarFmaRow(p, v, vo, acc, at, n);
    }
  }

  static void scalarFmaRow(float p, float[] v, int vo, float[] acc, int at, int n) {
    for (int d = 0; d < n; d++) {
      acc[at + d] = Math.fma(p, v[vo + d], acc[at + d]);
    }
  }
}
