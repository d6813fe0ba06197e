package dev.tandem.engine.model;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * Writes a {@code .safetensors} file whose tensors are produced one at a time (a 135M-parameter
 * model never has to sit in memory whole). Tensors are written in the order given, which callers
 * keep sorted by name, so the same tensors always give the same bytes.
 */
public final class SafetensorsWriter {
  /** A tensor to write: its values come from {@code data} when its turn comes. */
  public record Entry(String name, long[] shape, Supplier<float[]> data) {}

  private SafetensorsWriter() {}

  public static void write(Path file, List<Entry> entries, SafetensorsDtype dtype) throws IOException {
    JsonObject header = new JsonObject().put("__metadata__", new JsonObject().put("format", "pt"));
    long offset = 0;
    for (Entry e : entries) {
      long numel = 1;
      JsonArray shape = new JsonArray();
      for (long d : e.shape()) {
        numel *= d;
        shape.add(d);
      }
      long bytes = numel * dtype.size();
      header.put(e.name(), new JsonObject().put("dtype", dtype.name()).put("shape", shape)
          .put("data_offsets", new JsonArray().add(offset).add(offset + bytes)));
      offset += bytes;
    }
    byte[] json = header.encode().getBytes(StandardCharsets.UTF_8);
    int padded = (json.length + 7) & ~7; // data section 8-byte aligned, padded with spaces as HF does
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
      ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(padded);
      out.write(len.array());
      out.write(json);
      for (int i = json.length; i < padded; i++) {
        out.write(' ');
      }
      for (Entry e : entries) {
        float[] values = e.data().get();
        writeValues(out, values, dtype);
      }
    }
  }

  private static void writeValues(OutputStream out, float[] values, SafetensorsDtype dtype) throws IOException {
    int per = 1 << 16;
    ByteBuffer buf = ByteBuffer.allocate(per * dtype.size()).order(ByteOrder.LITTLE_ENDIAN);
    for (int start = 0; start < values.length; start += per) {
      int end = Math.min(values.length, start + per);
      buf.clear();
      for (int i = start; i < end; i++) {
        switch (dtype) {
          case F32 -> buf.putFloat(values[i]);
          case BF16 -> buf.putShort(SafetensorsDtype.floatToBf16(values[i]));
          case F16 -> buf.putShort(SafetensorsDtype.floatToHalf(values[i]));
          default -> throw new IllegalStateException(dtype.name());
        }
      }
      out.write(buf.array(), 0, buf.position());
    }
  }
}
