package dev.tandem.engine.model;

import java.nio.ByteBuffer;

/** The tensor element types the loader reads, each widened to float. */
public enum SafetensorsDtype {
  F32(4), F16(2), BF16(2);

  private final int size;

  SafetensorsDtype(int size) {
    this.size = size;
  }

  /** Bytes per element. */
  public int size() {
    return size;
  }

  /** The dtype of a header's {@code "dtype"} string, or null if it is not one the loader reads. */
  public static SafetensorsDtype parse(String name) {
    for (SafetensorsDtype d : values()) {
      if (d.name().equals(name)) {
        return d;
      }
    }
    return null;
  }

  /** Widens {@code count} little-endian elements from {@code src} into {@code dst[offset..]}. */
  void decode(ByteBuffer src, float[] dst, int offset, int count) {
    switch (this) {
      case F32 -> src.asFloatBuffer().get(dst, offset, count);
      case BF16 -> {
        for (int i = 0; i < count; i++) {
          dst[offset + i] = Float.intBitsToFloat((src.getShort(src.position() + 2 * i) & 0xffff) << 16);
        }
      }
      case F16 -> {
        for (int i = 0; i < count; i++) {
          dst[offset + i] = halfToFloat(src.getShort(src.position() + 2 * i));
        }
      }
      default -> throw new IllegalStateException(name());
    }
    src.position(src.position() + count * size);
  }

  /** IEEE 754 binary16 to float, exact (subnormals, infinities and NaN included). */
  static float halfToFloat(short h) {
    int bits = h & 0xffff;
    int sign = (bits & 0x8000) << 16;
    int exp = (bits >>> 10) & 0x1f;
    int mant = bits & 0x3ff;
    if (exp == 0x1f) {
      return Float.intBitsToFloat(sign | 0x7f800000 | (mant << 13));
    }
    if (exp == 0) {
      if (mant == 0) {
        return Float.intBitsToFloat(sign);
      }
      float v = mant * 0x1p-24f; // subnormal: mant * 2^-24, exact in float
      return sign == 0 ? v : -v;
    }
    return Float.intBitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
  }

  /** Float to bfloat16 bits, rounding to nearest even (NaN stays NaN). */
  public static short floatToBf16(float f) {
    int bits = Float.floatToRawIntBits(f);
    if (Float.isNaN(f)) {
      return (short) ((bits >>> 16) | 0x40);
    }
    int rounding = 0x7fff + ((bits >>> 16) & 1);
    return (short) ((bits + rounding) >>> 16);
  }

  /** Float to IEEE binary16 bits, rounding to nearest even (overflow to infinity). */
  public static short floatToHalf(float f) {
    int bits = Float.floatToRawIntBits(f);
    int sign = (bits >>> 16) & 0x8000;
    int abs = bits & 0x7fffffff;
    if (abs >= 0x7f800000) {
      return (short) (sign | 0x7c00 | (abs > 0x7f800000 ? 0x200 : 0));
    }
    if (abs >= 0x477ff000) { // >= 65520 rounds past the largest half, 65504
      return (short) (sign | 0x7c00);
    }
    if (abs < 0x38800000) { // below 2^-14: a half subnormal, in units of 2^-24
      return (short) (sign | (int) Math.rint(Float.intBitsToFloat(abs) * 0x1p24f));
    }
    int h = (((abs >>> 23) - 112) << 10) | ((abs & 0x7fffff) >>> 13);
    int rem = abs & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1) != 0)) {
      h++;
    }
    return (short) (sign | h);
  }
}
