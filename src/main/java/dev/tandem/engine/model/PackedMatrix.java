package dev.tandem.engine.model;

/**
 * A weight matrix [rows, cols] in panels for the matmul kernels, in its checkpoint dtype.
 *
 * <p>A panel is {@link #width} consecutive output rows (two vector registers' worth) stored
 * k-major: for each input index k the panel's {@code width} weights W[row][k] lie side by side,
 * so a kernel loads a whole vector of outputs' weights for one k and multiplies it by one
 * broadcast activation. Rows past {@code rows} in the last panel are zero.
 *
 * <p>F32 panels are floats at {@code ((p * cols + k) * width + i)}. BF16 and F16 panels keep 2 bytes
 * per weight: the int at {@code ((p * pairs + k / 2) * width + i)} holds W[row][k] for even k in
 * its low 16 bits and W[row][k + 1] in its high 16 bits, so one int vector load gives two
 * vectors of weights (k and k + 1) after a shift and a mask. The kernels widen them exactly.
 */
final class PackedMatrix {
  final SafetensorsDtype dtype;
  final int rows;
  final int cols;
  /** Output rows per panel. */
  final int width;
  final int panels;
  /** ceil(cols / 2): k-pairs per panel (half dtypes). */
  final int pairs;
  /** F32 panels, else null. */
  final float[] f32;
  /** BF16/F16 panels (two values per int), else null. */
  final int[] half;

  private PackedMatrix(SafetensorsDtype dtype, int rows, int cols, int width) {
    this.dtype = dtype;
    this.rows = rows;
    this.cols = cols;
    this.width = width;
    this.panels = (rows + width - 1) / width;
    this.pairs = (cols + 1) / 2;
    if (dtype == SafetensorsDtype.F32) {
      f32 = new float[Math.multiplyExact(Math.multiplyExact(panels, cols), width)];
      half = null;
    } else {
      f32 = null;
      half = new int[Math.multiplyExact(Math.multiplyExact(panels, pairs), width)];
    }
  }

  /**
   * Stacks {@code parts} (same number of columns) row-wise into one packed matrix, panels
   * {@code width} rows wide. Kept in the parts' dtype when they share a 16-bit one, else widened to F32.
   */
  static PackedMatrix pack(int width, RawTensor... parts) {
    int rows = 0;
    int cols = parts[0].cols();
    SafetensorsDtype dtype = parts[0].dtype();
    for (RawTensor p : parts) {
      if (p.cols() != cols) {
        throw new IllegalArgumentException("parts have " + cols + " and " + p.cols() + " columns");
      }
      rows += p.rows();
      if (p.dtype() != dtype) {
        dtype = SafetensorsDtype.F32;
      }
    }
    PackedMatrix m = new PackedMatrix(dtype, rows, cols, width);
    int row = 0;
    for (RawTensor p : parts) {
      for (int r = 0; r < p.rows(); r++, row++) {
        m.setRow(row, p, r);
      }
    }
    return m;
  }

  /** Packs a row-major F32 matrix (tests, and small matrices). */
  static PackedMatrix pack(int width, float[] rowMajor, int rows, int cols) {
    return pack(width, new RawTensor(SafetensorsDtype.F32, rows, cols, rowMajor, null));
  }

  private void setRow(int row, RawTensor src, int srcRow) {
    int p = row / width;
    int i = row % width;
    if (f32 != null) {
      for (int k = 0; k < cols; k++) {
        f32[(p * cols + k) * width + i] = src.get(srcRow, k);
      }
      return;
    }
    short[] bits = src.bits();
    int base = srcRow * cols;
    for (int k = 0; k < cols; k++) {
      int at = (p * pairs + k / 2) * width + i;
      int v = bits[base + k] & 0xffff;
      half[at] |= (k & 1) == 0 ? v : v << 16;
    }
  }

  /** W[row][k] widened to float, exactly. */
  float get(int row, int k) {
    int p = row / width;
    int i = row % width;
    if (f32 != null) {
      return f32[(p * cols + k) * width + i];
    }
    int v = half[(p * pairs + k / 2) * width + i];
    int bits = (k & 1) == 0 ? v & 0xffff : v >>> 16;
    return dtype == SafetensorsDtype.BF16 ? Float.intBitsToFloat(bits << 16)
        : SafetensorsDtype.halfToFloat((short) bits);
  }

  /** Copies row {@code row} widened to float into {@code dst[off .. off + cols)} (embedding lookup). */
  void row(int row, float[] dst, int off) {
    for (int k = 0; k < cols; k++) {
      dst[off + k] = get(row, k);
    }
  }

  /** Bytes of weights a pass over the matrix reads (padding rows excluded). */
  long bytes() {
    return (long) rows * cols * dtype.size();
  }
}
