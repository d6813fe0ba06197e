package dev.tandem.bench;

import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Incremental parser of a {@code text/event-stream} body as OpenAI-style servers send it:
 * {@code data: <json>\n\n} events ending with {@code data: [DONE]}. Network buffers may cut an
 * event anywhere (even inside a UTF-8 character), so bytes are kept until a line ends. Lines end
 * with LF, CRLF or CR; an event's several {@code data:} lines are joined with LF (the SSE rule);
 * comment lines ({@code :...}) and other fields are ignored.
 */
public final class SseParser {

  private final Consumer<String> onData;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
  private final StringBuilder eventData = new StringBuilder();
  private boolean eventHasData;
  private boolean lastWasCr;
  private boolean done;
  private int events;

  /** @param onData called with each event's data, {@code [DONE]} excluded */
  public SseParser(Consumer<String> onData) {
    this.onData = onData;
  }

  public void feed(Buffer buffer) {
    feed(buffer.getBytes());
  }

  public void feed(byte[] bytes) {
    for (byte b : bytes) {
      if (b == '\n') {
        if (lastWasCr) {
          lastWasCr = false; // second half of CRLF
          continue;
        }
        endLine();
      } else if (b == '\r') {
        lastWasCr = true;
        endLine();
      } else {
        lastWasCr = false;
        line.write(b);
      }
    }
  }

  /** Call at end of body: dispatches an event that lacked its final blank line. */
  public void end() {
    if (line.size() > 0) {
      endLine();
    }
    dispatch();
  }

  /** True once {@code data: [DONE]} was seen. */
  public boolean sawDone() {
    return done;
  }

  /** Number of data events delivered (the [DONE] marker excluded). */
  public int events() {
    return events;
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
    if (eventHasData) {
      eventData.append('\n');
    }
    eventData.append(value);
    eventHasData = true;
  }

  private void dispatch() {
    if (!eventHasData) {
      return;
    }
    String data = eventData.toString();
    eventData.setLength(0);
    eventHasData = false;
    if (data.trim().equals("[DONE]")) {
      done = true;
      return;
    }
    events++;
    onData.accept(data);
  }
}
