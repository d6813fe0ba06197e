package dev.tandem.world.transport;

import dev.tandem.kv.KvRows;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.zip.CRC32C;

/**
 * Streams K/V rows as little-endian float32 through one direct buffer, computing CRC32C on the way.
 * Bulk {@code FloatBuffer} copies between {@code float[]} and a little-endian direct buffer are
 * plain memory copies on little-endian machines, so the payload costs about one copy per side.
 */
final class KvPayload {
  /** 1 MiB: large enough that each write is one big syscall, small enough to stay in cache. */
  static final int CHUNK_BYTES = 1 << 20;
  private static final int CHUNK_FLOATS = CHUNK_BYTES / Float.BYTES;

  private KvPayload() {}

  static ByteBuffer newBuffer() {
    return ByteBuffer.allocateDirect(CHUNK_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** Writes every layer's K then V rows; returns the CRC32C of the bytes written. */
  static int write(WritableByteChannel ch, KvRows rows, ByteBuffer buffer) throws IOException {
    CRC32C crc = new CRC32C();
    int n = rows.numTokens() * rows.kvDim();
    for (int layer = 0; layer < rows.keys().length; layer++) {
      writeArray(ch, rows.keys()[layer], n, buffer, crc);
      writeArray(ch, rows.values()[layer], n, buffer, crc);
    }
    return (int) crc.getValue();
  }

  private static void writeArray(WritableByteChannel ch, float[] src, int n, ByteBuffer buffer, CRC32C crc)
      throws IOException {
    for (int off = 0; off < n; off += CHUNK_FLOATS) {
      int count = Math.min(CHUNK_FLOATS, n - off);
      buffer.clear();
      buffer.asFloatBuffer().put(src, off, count);
      buffer.limit(count * Float.BYTES);
      crc.update(buffer);
      buffer.flip();
      while (buffer.hasRemaining()) {
        ch.write(buffer);
      }
    }
  }

  /** The rows read and the CRC32C of their bytes. */
  record Received(KvRows rows, int crc) {}

  static Received read(ReadableByteChannel ch, int numLayers, int numTokens, int kvDim, ByteBuffer buffer)
      throws IOException {
    CRC32C crc = new CRC32C();
    int n = numTokens * kvDim;
    float[][] keys = new float[numLayers][];
    float[][] values = new float[numLayers][];
    for (int layer = 0; layer < numLayers; layer++) {
      keys[layer] = readArray(ch, n, buffer, crc);
      values[layer] = readArray(ch, n, buffer, crc);
    }
    return new Received(new KvRows(numTokens, kvDim, keys, values), (int) crc.getValue());
  }

  private static float[] readArray(ReadableByteChannel ch, int n, ByteBuffer buffer, CRC32C crc) throws IOException {
    float[] dst = new float[n];
    for (int off = 0; off < n; off += CHUNK_FLOATS) {
      int count = Math.min(CHUNK_FLOATS, n - off);
      buffer.clear().limit(count * Float.BYTES);
      while (buffer.hasRemaining()) {
        if (ch.read(buffer) < 0) {
          throw new EOFException("the sender closed the connection in the middle of the KV rows");
        }
      }
      buffer.flip();
      buffer.asFloatBuffer().get(dst, off, count);
      crc.update(buffer);
    }
    return dst;
  }
}
