package dev.tandem.api;

import io.vertx.core.buffer.Buffer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Incremental server-sent-events parser for OpenAI-style streams (the router reading engines, the
 * load generator reading any server). Feed it buffers as they arrive (split anywhere, even inside a
 * UTF-8 sequence or a CRLF); it calls the handler with the data of each complete event
 * ({@code data:} lines joined by newlines), as the SSE spec dispatches events on a blank line.
 * Comments and other fields ({@code event:}, {@code id:}) are ignored.
 *
 * <p>Engines in the wild also end a stream right after a {@code data:} line without the blank
 * line; {@link #finish()} dispatches such a trailing event.
 *
 * <p>The router relays every engine chunk through this parser, so it works on bytes: one copy of
 * each buffer, no per-line strings, and the event's data handed over as a byte range
 * ({@link DataHandler}) that the caller parses in place. An event whose lines all arrived in one
 * buffer is handed over straight from that buffer, without a copy.
 */
public final class SseParser {

  /** Bound on one line, so a misbehaving engine cannot make the router buffer without limit. */
  public static final int MAX_LINE_BYTES = 16 * 1024 * 1024;

  /** Receives one event's data: UTF-8 bytes, valid only during the call. */
  @FunctionalInterface
  public interface DataHandler {
    void onData(byte[] bytes, int offset, int length);
  }

  /**
   * Reads a whole event where one begins, before the parser looks for its line ends: the reader
   * of a stream whose events repeat a known shape can tell where one ends from its contents.
   */
  @FunctionalInterface
  public interface EventReader {
    /**
     * Reads the event that begins at {@code bytes[from]} if the bytes to {@code end} hold it
     * whole, blank line included, and one data line is all it has (no CR or LF before the line's
     * end); returns how many bytes it took, or -1 to leave the event to the parser.
     */
    int read(byte[] bytes, int from, int end);
  }

  private static final byte[] DATA = {'d', 'a', 't', 'a'};
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final DataHandler onData;
  private final EventReader whole;
  private static final byte[] NONE = {};

  /** Made on first use: most events lie whole in one buffer and need neither (see endLine). */
  private byte[] line = NONE;
  private int lineLength;
  private byte[] data = NONE;
  private int dataLength;
  private boolean hasData;
  private boolean lastWasCr;
  /** The current event's data while it is still only in the caller's buffer (see endLine). */
  private boolean inView;
  private byte[] view;
  private int viewFrom;
  private int viewLength;

  public SseParser(DataHandler onData) {
    this(onData, null);
  }

  /**
   * A parser that offers each event first to {@code whole}, where it begins in a buffer with no
   * line or event of it before; what {@code whole} leaves goes to {@code onData} as usual.
   */
  public SseParser(DataHandler onData, EventReader whole) {
    this.onData = onData;
    this.whole = whole;
  }

  /** A parser that hands each event's data over as a string. */
  public SseParser(Consumer<String> onData) {
    this((bytes, offset, length) ->
        onData.accept(new String(bytes, offset, length, StandardCharsets.UTF_8)));
  }

  /**
   * Consumes {@code chunk}.
   *
   * @throws IllegalStateException when a line exceeds {@link #MAX_LINE_BYTES}
   */
  public void feed(Buffer chunk) {
    byte[] bytes = chunk.getBytes();
    feed(bytes, 0, bytes.length);
  }

  /**
   * Consumes {@code length} bytes of {@code bytes} from {@code offset} (not kept after the call).
   *
   * @throws IllegalStateException when a line exceeds {@link #MAX_LINE_BYTES}
   */
  public void feed(byte[] bytes, int offset, int length) {
    int end = offset + length;
    int start = readWhole(bytes, offset, end);
    for (int i = lineEnd(bytes, start, end); i >= 0; i = lineEnd(bytes, start, end)) {
      byte b = bytes[i];
      boolean afterCr = i > offset ? bytes[i - 1] == '\r' : lastWasCr;
      if (b == '\n' && afterCr) {
        start = readWhole(bytes, i + 1, end); // second half of CRLF: the line ended at CR
        continue;
      }
      if (lineLength == 0) {
        endLine(bytes, start, i - start, true); // the whole line is in this buffer
      } else {
        appendLine(bytes, start, i - start);
        int n = lineLength;
        lineLength = 0;
        endLine(line, 0, n, false);
      }
      start = readWhole(bytes, i + 1, end);
    }
    appendLine(bytes, start, end - start);
    if (length > 0) {
      lastWasCr = bytes[end - 1] == '\r';
    }
    if (inView) {
      keepView(); // the caller's bytes are not kept after the call
    }
  }

  /**
   * Where the parser goes on after the whole events {@link #whole} read from {@code from}: only
   * at an event's beginning (no line of it kept, no data line of it seen before).
   */
  private int readWhole(byte[] bytes, int from, int end) {
    if (whole == null || lineLength != 0 || hasData) {
      return from;
    }
    int at = from;
    while (at < end) {
      int n = whole.read(bytes, at, end);
      if (n <= 0) {
        break;
      }
      at += n;
    }
    return at;
  }

  /**
   * The index of the first CR or LF in {@code bytes[from, end)}, or -1: eight bytes per step
   * (a zero-byte test on the word XOR each of the two), as the parser reads every byte of every
   * engine answer.
   */
  public static int lineEnd(byte[] bytes, int from, int end) {
    int i = from;
    for (; i + 8 <= end; i += 8) {
      long word = (long) LONGS.get(bytes, i);
      long lf = word ^ 0x0a0a0a0a0a0a0a0aL;
      long cr = word ^ 0x0d0d0d0d0d0d0d0dL;
      long found = ((lf - 0x0101010101010101L) & ~lf | (cr - 0x0101010101010101L) & ~cr)
          & 0x8080808080808080L;
      if (found != 0) {
        return i + (Long.numberOfTrailingZeros(found) >>> 3);
      }
    }
    for (; i < end; i++) {
      if (bytes[i] == '\n' || bytes[i] == '\r') {
        return i;
      }
    }
    return -1;
  }

  /** Call at end of stream: dispatches a last event that was not followed by a blank line. */
  public void finish() {
    if (lineLength > 0) {
      int n = lineLength;
      lineLength = 0;
      endLine(line, 0, n, false);
    }
    dispatch();
  }

  private void appendLine(byte[] bytes, int offset, int length) {
    if (length == 0) {
      return;
    }
    if (lineLength + length > MAX_LINE_BYTES) {
      throw new IllegalStateException("SSE line longer than " + MAX_LINE_BYTES + " bytes");
    }
    line = ensure(line, lineLength + length);
    System.arraycopy(bytes, offset, line, lineLength, length);
    lineLength += length;
  }

  /**
   * One complete line, {@code length} bytes of {@code src} from {@code at}. An event's first data
   * line that lies in the caller's buffer ({@code inPlace}) is not copied: if the blank line that
   * ends the event comes in the same buffer, the handler gets the event straight from it.
   */
  private void endLine(byte[] src, int at, int length, boolean inPlace) {
    if (length == 0) {
      dispatch();
      return;
    }
    // Only "data" lines matter: "data" alone, or "data:" then the value (one leading space off).
    if (length < DATA.length || !Arrays.equals(src, at, at + DATA.length, DATA, 0, DATA.length)
        || (length > DATA.length && src[at + DATA.length] != ':')) {
      return;
    }
    int from = Math.min(length, DATA.length + 1);
    if (from < length && src[at + from] == ' ') {
      from++;
    }
    int valueAt = at + from;
    int valueLength = length - from;
    if (!hasData && inPlace) {
      view = src;
      viewFrom = valueAt;
      viewLength = valueLength;
      inView = true;
      hasData = true;
      return;
    }
    if (inView) {
      keepView();
    }
    if (hasData) {
      data = ensure(data, dataLength + 1);
      data[dataLength++] = '\n';
    }
    data = ensure(data, dataLength + valueLength);
    System.arraycopy(src, valueAt, data, dataLength, valueLength);
    dataLength += valueLength;
    hasData = true;
  }

  /** Copies the event's data still in the caller's buffer into {@link #data}. */
  private void keepView() {
    data = ensure(data, dataLength + viewLength);
    System.arraycopy(view, viewFrom, data, dataLength, viewLength);
    dataLength += viewLength;
    inView = false;
    view = null;
  }

  private void dispatch() {
    if (!hasData) {
      return;
    }
    hasData = false;
    if (inView) {
      byte[] v = view;
      inView = false;
      view = null;
      onData.onData(v, viewFrom, viewLength);
      return;
    }
    int length = dataLength;
    dataLength = 0;
    onData.onData(data, 0, length);
  }

  private static byte[] ensure(byte[] array, int size) {
    return size <= array.length ? array
        : Arrays.copyOf(array, Math.max(size, Math.max(512, array.length * 2)));
  }
}
