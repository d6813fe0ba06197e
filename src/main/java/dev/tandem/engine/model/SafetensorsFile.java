package dev.tandem.engine.model;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Map;
import java.util.TreeMap;

/**
 * One {@code .safetensors} file: an 8-byte little-endian header length, a JSON header naming each
 * tensor's dtype, shape and byte range, then the raw data. Reads tensors as float arrays, or as
 * stored (16-bit patterns kept) for the weight matrices.
 */
public final class SafetensorsFile implements AutoCloseable {

  /** One tensor's header entry; offsets are relative to the start of the data section. */
  public record TensorInfo(String name, SafetensorsDtype dtype, long[] shape, long begin, long end) {
    public long numel() {
      long n = 1;
      for (long d : shape) {
        n *= d;
      }
      return n;
    }

    public String shapeString() {
      StringBuilder sb = new StringBuilder("[");
      for (int i = 0; i < shape.length; i++) {
        sb.append(i == 0 ? "" : ", ").append(shape[i]);
      }
      return sb.append(']').toString();
    }
  }

  private static final long MAX_HEADER = 100L << 20;
  private static final int READ_CHUNK = 8 << 20;

  private final Path path;
  private final FileChannel channel;
  private final long dataStart;
  private final Map<String, TensorInfo> tensors;

  private SafetensorsFile(Path path, FileChannel channel, long dataStart, Map<String, TensorInfo> tensors) {
    this.path = path;
    this.channel = channel;
    this.dataStart = dataStart;
    this.tensors = tensors;
  }

  /** Opens and validates the header (dtypes, offsets, file length). */
  public static SafetensorsFile open(Path path) throws ModelLoadException {
    FileChannel ch;
    try {
      ch = FileChannel.open(path, StandardOpenOption.READ);
    } catch (NoSuchFileException e) {
      throw new ModelLoadException(path + ": missing");
    } catch (IOException e) {
      throw new ModelLoadException(path + ": cannot open: " + e.getMessage(), e);
    }
    try {
      SafetensorsFile f = readHeader(path, ch);
      ch = null;
      return f;
    } finally {
      if (ch != null) {
        closeQuietly(ch);
      }
    }
  }

  private static SafetensorsFile readHeader(Path path, FileChannel ch) throws ModelLoadException {
    try {
      long fileSize = ch.size();
      if (fileSize < 8) {
        throw new ModelLoadException(path + ": truncated: " + fileSize + " bytes, too short for a safetensors header");
      }
      ByteBuffer lenBuf = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      readFully(ch, lenBuf, 0);
      long headerLen = lenBuf.flip().getLong();
      if (headerLen <= 0 || headerLen > MAX_HEADER) {
        throw new ModelLoadException(path + ": not a safetensors file (header length " + headerLen + ")");
      }
      if (8 + headerLen > fileSize) {
        throw new ModelLoadException(path + ": truncated: header needs " + headerLen
            + " bytes but the file has " + (fileSize - 8) + " after the length");
      }
      ByteBuffer headerBuf = ByteBuffer.allocate((int) headerLen);
      readFully(ch, headerBuf, 8);
      JsonObject header;
      try {
        header = new JsonObject(new String(headerBuf.array(), StandardCharsets.UTF_8));
      } catch (DecodeException | ClassCastException e) {
        throw new ModelLoadException(path + ": header is not valid JSON: " + e.getMessage(), e);
      }
      long dataStart = 8 + headerLen;
      Map<String, TensorInfo> tensors = new TreeMap<>();
      long dataEnd = 0;
      for (Map.Entry<String, Object> e : header) {
        if (e.getKey().equals("__metadata__")) {
          continue;
        }
        TensorInfo t = parseEntry(path, e.getKey(), e.getValue());
        tensors.put(t.name(), t);
        dataEnd = Math.max(dataEnd, t.end());
      }
      if (dataStart + dataEnd > fileSize) {
        throw new ModelLoadException(path + ": truncated: the header declares " + dataEnd
            + " bytes of tensor data but the file holds " + (fileSize - dataStart));
      }
      return new SafetensorsFile(path, ch, dataStart, tensors);
    } catch (IOException e) {
      throw new ModelLoadException(path + ": cannot read: " + e.getMessage(), e);
    }
  }

  private static TensorInfo parseEntry(Path path, String name, Object value) throws ModelLoadException {
    if (!(value instanceof JsonObject o)) {
      throw new ModelLoadException(path + ": header entry " + name + " is not an object");
    }
    String dtypeName = String.valueOf(o.getValue("dtype"));
    SafetensorsDtype dtype = SafetensorsDtype.parse(dtypeName);
    if (dtype == null) {
      throw new ModelLoadException(path + ": tensor " + name + " has unsupported dtype " + dtypeName
          + " (supported: F32, F16, BF16)");
    }
    long[] shape;
    long begin;
    long end;
    try {
      JsonArray s = o.getJsonArray("shape");
      shape = new long[s.size()];
      for (int i = 0; i < shape.length; i++) {
        shape[i] = s.getLong(i);
        if (shape[i] < 0) {
          throw new ModelLoadException(path + ": tensor " + name + " has a negative dimension");
        }
      }
      JsonArray off = o.getJsonArray("data_offsets");
      begin = off.getLong(0);
      end = off.getLong(1);
    } catch (ClassCastException | NullPointerException | IndexOutOfBoundsException e) {
      throw new ModelLoadException(path + ": tensor " + name + " has a malformed shape or data_offsets", e);
    }
    TensorInfo t = new TensorInfo(name, dtype, shape, begin, end);
    if (begin < 0 || end < begin || end - begin != t.numel() * dtype.size()) {
      throw new ModelLoadException(path + ": tensor " + name + " data_offsets [" + begin + ", " + end
          + ") do not hold " + t.shapeString() + " of " + dtype);
    }
    return t;
  }

  public Path path() {
    return path;
  }

  public Map<String, TensorInfo> tensors() {
    return tensors;
  }

  /**
   * Reads a tensor widened to float. When {@code digest} is given it is fed the tensor's name,
   * dtype, shape and raw bytes, so the fingerprint does not depend on how tensors are sharded.
   */
  public float[] readFloats(String name, MessageDigest digest) throws ModelLoadException {
    TensorInfo t = info(name);
    float[] out = new float[(int) t.numel()];
    read(t, digest, (buf, done, count) -> t.dtype().decode(buf, out, done, count));
    return out;
  }

  /**
   * Reads a tensor as stored: F32 as floats, BF16/F16 as their 16-bit patterns (not widened).
   * Shape [rows, cols] (a 1-D tensor is one row). The digest is fed as by {@link #readFloats}.
   */
  RawTensor readRaw(String name, MessageDigest digest) throws ModelLoadException {
    TensorInfo t = info(name);
    int numel = (int) t.numel();
    int cols = t.shape().length == 0 ? 1 : (int) t.shape()[t.shape().length - 1];
    int rows = cols == 0 ? 0 : numel / cols;
    if (t.dtype() == SafetensorsDtype.F32) {
      float[] out = new float[numel];
      read(t, digest, (buf, done, count) -> buf.asFloatBuffer().get(out, done, count));
      return new RawTensor(t.dtype(), rows, cols, out, null);
    }
    short[] out = new short[numel];
    read(t, digest, (buf, done, count) -> buf.asShortBuffer().get(out, done, count));
    return new RawTensor(t.dtype(), rows, cols, null, out);
  }

  private TensorInfo info(String name) throws ModelLoadException {
    TensorInfo t = tensors.get(name);
    if (t == null) {
      throw new ModelLoadException(path + ": no tensor " + name);
    }
    if (t.numel() > Integer.MAX_VALUE - 8) {
      throw new ModelLoadException(path + ": tensor " + name + " " + t.shapeString() + " is too large");
    }
    return t;
  }

  /** Takes {@code count} elements from {@code buf} (little-endian) into element {@code done} onwards. */
  private interface Sink {
    void take(ByteBuffer buf, int done, int count);
  }

  private void read(TensorInfo t, MessageDigest digest, Sink sink) throws ModelLoadException {
    long numel = t.numel();
    if (digest != null) {
      digest.update((t.name() + "|" + t.dtype() + "|" + t.shapeString() + "|").getBytes(StandardCharsets.UTF_8));
    }
    int elemSize = t.dtype().size();
    int perChunk = READ_CHUNK / elemSize;
    ByteBuffer buf = ByteBuffer.allocate((int) Math.min((long) perChunk * elemSize, numel * elemSize))
        .order(ByteOrder.LITTLE_ENDIAN);
    try {
      int done = 0;
      while (done < numel) {
        int count = (int) Math.min(perChunk, numel - done);
        buf.clear().limit(count * elemSize);
        readFully(channel, buf, dataStart + t.begin() + (long) done * elemSize);
        buf.flip();
        if (digest != null) {
          digest.update(buf.array(), 0, buf.limit());
        }
        sink.take(buf, done, count);
        done += count;
      }
    } catch (IOException e) {
      throw new ModelLoadException(path + ": cannot read tensor " + t.name() + ": " + e.getMessage(), e);
    }
  }

  private static void readFully(FileChannel ch, ByteBuffer buf, long position) throws IOException {
    long pos = position;
    while (buf.hasRemaining()) {
      int n = ch.read(buf, pos);
      if (n < 0) {
        throw new IOException("unexpected end of file at byte " + pos);
      }
      pos += n;
    }
  }

  private static void closeQuietly(FileChannel ch) {
    try {
      ch.close();
    } catch (IOException ignored) {
      // nothing useful to do: the load already failed
    }
  }

  @Override
  public void close() {
    closeQuietly(channel);
  }
}
