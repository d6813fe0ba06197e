package dev.tandem.router.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A streaming completion read event by event on a thread of its own, each event stamped with the
 * time it arrived; {@link #close()} drops the connection mid-stream like a client that leaves.
 */
final class SseStream implements AutoCloseable {

  /** One {@code data:} payload, or the end of the stream ({@code data == null}). */
  record Event(long atMillis, String data) {}

  private final InputStream body;
  private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
  final int status;

  private SseStream(HttpResponse<InputStream> response) {
    this.status = response.statusCode();
    this.body = response.body();
    Thread reader = new Thread(this::read, "sse-reader");
    reader.setDaemon(true);
    reader.start();
  }

  static SseStream open(HttpClient http, int port, String json) throws Exception {
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/completions"))
        .timeout(Duration.ofSeconds(120)).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)).build();
    return new SseStream(http.send(req, HttpResponse.BodyHandlers.ofInputStream()));
  }

  private void read() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("data: ")) {
          events.add(new Event(System.currentTimeMillis(), line.substring(6)));
        }
      }
    } catch (IOException closed) {
      // the stream was closed (by us or by the server)
    }
    events.add(new Event(System.currentTimeMillis(), null));
  }

  /** The next event, or null if none came within {@code timeoutMs}. */
  Event next(long timeoutMs) throws InterruptedException {
    return events.poll(timeoutMs, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() throws IOException {
    body.close();
  }
}
