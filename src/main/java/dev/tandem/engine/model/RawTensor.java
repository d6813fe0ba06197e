package dev.tandem.engine.model;

/**
 * A 2-D tensor as stored in a checkpoint, row-major: F32 values in {@code floats}, or the 16-bit
 * patterns of BF16/F16 values in {@code bits} (not widened, so a bf16 model keeps 2 bytes per weight).
 */
record RawTensor(SafetensorsDtype dtype, int rows, int cols, float[] floats, short[] bits) {

  /** Element (r, c) widened to float, exactly. */
  float get(int r, int c) {
    int i = r * cols + c;
    return switch (dtype) {
      case F32 -> floats[i];
      case BF16 -> Float.intBitsToFloat((bits[i] & 0xffff) << 16);
      case F16 -> SafetensorsDtype.halfToFloat(bits[i]);
    };
  }

  /** All elements widened to float. */
  float[] toFloats() {
    if (dtype == SafetensorsDtype.F32) {
      return floats;
    }
    float[] out = new float[rows * cols];
    for (int r = 0; r < rows; r++) {
      for (int c = 0; c < cols; c++) {
        out[r * cols + c] = get(r, c);
      }
    }
    return out;
  }
}
