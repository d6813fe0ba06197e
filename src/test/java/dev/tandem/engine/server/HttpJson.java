package dev.tandem.engine.server;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Blocking HTTP calls for tests (JDK client, off any event loop). */
public final class HttpJson {
  private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;

  public HttpJson(String host, int port) {
    this.base = "http://" + host + ":" + port;
  }

  public record Reply(int status, String body) {
    public JsonObject json() {
      return new JsonObject(body);
    }

    /** The JSON objects of an SSE body, after checking its framing; the last event must be [DONE]. */
    public List<JsonObject> events() {
      List<JsonObject> events = new ArrayList<>();
      String[] parts = body.split("\n\n", -1);
      if (!parts[parts.length - 1].isEmpty()) {
        throw new AssertionError("SSE body does not end with a blank line: " + body);
      }
      for (int i = 0; i < parts.length - 1; i++) {
        if (!parts[i].startsWith("data: ") || parts[i].indexOf('\n') >= 0) {
          throw new AssertionError("bad SSE event: " + parts[i]);
        }
        String data = parts[i].substring(6);
        if (i == parts.length - 2) {
          if (!data.equals("[DONE]")) {
            throw new AssertionError("stream does not end with [DONE]: " + data);
          }
        } else {
          events.add(new JsonObject(data));
        }
      }
      return events;
    }
  }

  public Reply get(String path) throws IOException, InterruptedException {
    HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(base + path))
        .timeout(Duration.ofSeconds(60)).GET().build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), r.body());
  }

  public Reply post(String path, String body) throws IOException, InterruptedException {
    HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(base + path))
        .timeout(Duration.ofSeconds(120)).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), r.body());
  }

  public Reply post(String path, JsonObject body) throws IOException, InterruptedException {
    return post(path, body.encode());
  }

  /** Token ids of every choice of a finished (non-streaming) response, from usage.extra. */
  public static List<int[]> outputIds(JsonObject response) {
    JsonArray ids = response.getJsonObject("usage").getJsonObject("extra").getJsonArray("output_token_ids");
    List<int[]> out = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      JsonArray c = ids.getJsonArray(i);
      int[] a = new int[c.size()];
      for (int j = 0; j < a.length; j++) {
        a[j] = c.getInteger(j);
      }
      out.add(a);
    }
    return out;
  }

  /** A metric's value from Prometheus text (first sample with that exact name). */
  public static double metric(String text, String name) {
    for (String line : text.split("\n")) {
      if (line.startsWith(name + " ")) {
        return Double.parseDouble(line.substring(name.length() + 1).trim());
      }
    }
    throw new AssertionError("no metric " + name + " in\n" + text);
  }
}
