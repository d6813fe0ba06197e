package dev.tandem.world;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** The world root protocol's framing: one JSON object per line, lines at most 1 MiB. */
final class JsonLineSocket implements AutoCloseable {
  private static final int MAX_LINE = 1 << 20;

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  JsonLineSocket(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  Socket socket() {
    return socket;
  }

  /** Next message; EOFException when the peer closed the connection. */
  JsonObject read() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(256);
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("connection closed by the peer");
      }
      if (b == '\n') {
        break;
      }
      if (line.size() >= MAX_LINE) {
        throw new IOException("world protocol line longer than " + MAX_LINE + " bytes");
      }
      line.write(b);
    }
    try {
      return new JsonObject(line.toString(StandardCharsets.UTF_8));
    } catch (DecodeException | ClassCastException e) {
      throw new IOException("malformed world protocol message: " + e.getMessage(), e);
    }
  }

  /** Thread-safe: the root pushes tables from other members' threads. */
  synchronized void write(JsonObject message) throws IOException {
    byte[] bytes = (message.encode() + "\n").getBytes(StandardCharsets.UTF_8);
    out.write(bytes);
    out.flush();
  }

  /** Writes, and closes the connection if that fails (the peer is gone). */
  void writeQuietly(JsonObject message) {
    try {
      write(message);
    } catch (IOException e) {
      close();
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException ignored) {
      // already broken
    }
  }
}
