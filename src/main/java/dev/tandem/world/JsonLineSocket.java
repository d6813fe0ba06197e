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

/**
 * An engine's end of the world root protocol: one JSON object per line, lines at most 1 MiB, over
 * a plain blocking socket. Engines join the world once, on a dedicated thread at start-up (before
 * their HTTP server exists), and then only watch for pushed tables, so blocking I/O keeps their
 * side a straight line; the root, which serves every engine at once, is on Vert.x
 * ({@link RootConnection}).
 */
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

  void write(JsonObject message) throws IOException {
    byte[] bytes = (message.encode() + "\n").getBytes(StandardCharsets.UTF_8);
    out.write(bytes);
    out.flush();
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
