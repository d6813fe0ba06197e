package dev.tandem.engine.model;

/**
 * Rotary position embedding in Hugging Face's rotate_half convention: element i of a head is
 * rotated with element i + headDim/2, at frequency theta^(-2i/headDim). Angles follow HF's float32
 * arithmetic; cos/sin use StrictMath so every machine gets the same table. Llama 3.1's
 * {@code rope_scaling} remaps the frequencies first ({@link RopeScaling#remap}).
 */
final class Rope {
  private final int half;
  private final float[] invFreq;
  private final int tablePositions;
  private final float[] cos;
  private final float[] sin;

  Rope(int headDim, double theta, RopeScaling scaling, int maxPositions) {
    half = headDim / 2;
    invFreq = inverseFrequencies(headDim, theta, scaling);
    tablePositions = maxPositions;
    cos = new float[maxPositions * half];
    sin = new float[maxPositions * half];
    for (int p = 0; p < maxPositions; p++) {
      for (int i = 0; i < half; i++) {
        float angle = p * invFreq[i];
        cos[p * half + i] = (float) StrictMath.cos(angle);
        sin[p * half + i] = (float) StrictMath.sin(angle);
      }
    }
  }

  /** theta^(-2i/headDim) for i < headDim/2, remapped by {@code scaling} when it is not null. */
  static float[] inverseFrequencies(int headDim, double theta, RopeScaling scaling) {
    float[] inv = new float[headDim / 2];
    for (int i = 0; i < inv.length; i++) {
      float exponent = (float) (2 * i) / headDim;
      inv[i] = (float) (1.0 / (float) StrictMath.pow(theta, exponent));
    }
    return scaling == null ? inv : scaling.remap(inv);
  }

  /** Rotates {@code numHeads} consecutive heads of {@code 2 * half} floats starting at {@code v[off]}. */
  void apply(float[] v, int off, int numHeads, int pos) {
    for (int h = 0; h < numHeads; h++) {
      int base = off + h * 2 * half;
      for (int i = 0; i < half; i++) {
        float c;
        float s;
        if (pos < tablePositions) {
          c = cos[pos * half + i];
          s = sin[pos * half + i];
        } else {
          float angle = pos * invFreq[i];
          c = (float) StrictMath.cos(angle);
          s = (float) StrictMath.sin(angle);
        }
        float x0 = v[base + i];
        float x1 = v[base + i + half];
        v[base + i] = x0 * c - x1 * s;
        v[base + i + half] = x1 * c + x0 * s;
      }
    }
  }
}
