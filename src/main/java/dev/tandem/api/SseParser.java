package dev.tandem.api;

import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Incremental server-sent-events parser for OpenAI-style streams (the router reading engines, the
 * load generator reading any server). Feed it buffers as they arrive (split
 * anywhere, even inside a UTF-8 sequence or a CRLF); it calls the handler with the data of each
 * complete event ({@code data:} lines joined by newlines), as the SSE spec dispatches events on a
 * blank line. Comments and other fields ({@code event:}, {@code id:}) are ignored.
 *
 * <p>Engines in the wild also end a stream right after a {@code data:} line without the blank
 * line; {@link #finish()} dispatches such a trailing event.
 */
public final class SseParser {

  /** Bound on one line, so a misbehaving engine cannot make the router buffer without limit. */
  public static final int MAX_LINE_BYTES = 16 * 1024 * 1024;

  private final Consumer<String> onData;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
  private final StringBuilder data = new StringBuilder();
  private boolean hasData;
  private boolean lastWasCr;

  public SseParser(Consumer<String> onData) {
    this.onData = onData;
  }

  /**
   * Consumes {@code chunk}.
   *
   * @throws IllegalStateException when a line exceeds {@link #MAX_LINE_BYTES}
   */
  public void feed(Buffer chunk) {
    int n = chunk.length();
    for (int i = 0; i < n; i++) {
      byte b = chunk.getByte(i);
      if (b == '\n') {
        if (lastWasCr) {
          lastWasCr = false; // second half of CRLF: the line already ended at CR
          continue;
        }
        endLine();
      } else if (b == '\r') {
        endLine();
        lastWasCr = true;
        continue;
      } else {
        if (line.size() >= MAX_LINE_BYTES) {
          throw new IllegalStateException("SSE line longer than " + MAX_LINE_BYTES + " bytes");
        }
        line.write(b);
      }
      lastWasCr = false;
    }
  }

  /** Call at end of stream: dispatches a last event that was not followed by a blank line. */
  public void finish() {
    if (line.size() > 0) {
      endLine();
    }
    dispatch();
  }

  private void endLine() {
    String text = line.toString(StandardCharsets.UTF_8);
    line.reset();
    if (text.isEmpty()) {
      dispatch();
      return;
    }
    if (text.startsWith(":")) {
      return;
    }
    int colon = text.indexOf(':');
    String field = colon < 0 ? text : text.substring(0, colon);
    if (!field.equals("data")) {
      return;
    }
    String value = colon < 0 ? "" : text.substring(colon + 1);
    if (value.startsWith(" ")) {
      value = value.substring(1);
    }
    if (hasData) {
      data.append('\n');
    }
    data.append(value);
    hasData = true;
  }

  private void dispatch() {
    if (!hasData) {
      return;
    }
    String event = data.toString();
    data.setLength(0);
    hasData = false;
    onData.accept(event);
  }
}
