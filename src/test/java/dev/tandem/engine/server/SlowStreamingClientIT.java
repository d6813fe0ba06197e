package dev.tandem.engine.server;

import static dev.tandem.engine.server.MicroServingCalls.metric;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TinyModel;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Back-pressure for streaming clients, with engine processes and raw sockets whose receive buffer
 * is tiny: a client that stops reading holds its request in the engine (generation stops, nothing
 * piles up in memory) and, once it reads again, gets every token, the same tokens as an unhurried
 * client; a client that stays stalled past --client-stall-timeout is cut off and its request freed.
 */
class SlowStreamingClientIT {
  static final int MAX_TOKENS = 2000;
  static final int N = 2;

  static EngineProcess patient;
  static EngineProcess strict;

  @BeforeAll
  static void start() throws Exception {
    Path model = TinyModel.shared();
    int a = FreePorts.one();
    int b = FreePorts.one();
    String[] common = {"--enable-debug", "--mode", "server", "--overrides",
        "max_num_sequence=4;max_total_seq_length=8192"};
    patient = EngineProcess.launch(EngineProcess.serveCommand(model, a, common), Map.of(), a);
    strict = EngineProcess.launch(EngineProcess.serveCommand(model, b, concat(common,
        "--client-stall-timeout", "3")), Map.of(), b);
    patient.awaitReady(Duration.ofSeconds(120));
    strict.awaitReady(Duration.ofSeconds(120));
  }

  @AfterAll
  static void stop() {
    for (EngineProcess e : new EngineProcess[] {patient, strict}) {
      if (e != null) {
        e.close();
      }
    }
  }

  static String[] concat(String[] a, String... b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  /** n = 2 sampled choices with top-5 logprobs: about 1 KB of SSE per step, MBs in all. */
  static JsonObject request(boolean stream) {
    return new JsonObject().put("prompt", new JsonArray(List.of(5, 6, 7, 8, 9, 10, 11, 12)))
        .put("max_tokens", MAX_TOKENS).put("n", N).put("temperature", 0.9).put("seed", 3)
        .put("logprobs", 5).put("stream", stream)
        .put("stream_options", new JsonObject().put("include_usage", true))
        .put("debug_config", new JsonObject().put("ignore_eos", true));
  }

  /** Sends a request on a socket with a tiny receive window, and reads nothing yet. */
  static Socket sendUnread(EngineProcess e, JsonObject body) throws IOException {
    Socket s = new Socket();
    s.setReceiveBufferSize(4096);
    s.connect(new InetSocketAddress("127.0.0.1", e.port()), 5000);
    byte[] json = body.encode().getBytes(StandardCharsets.UTF_8);
    String head = "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Connection: close\r\nContent-Length: " + json.length + "\r\n\r\n";
    s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().write(json);
    s.getOutputStream().flush();
    return s;
  }

  /** Waits until {@code name} has not moved for 3 s (and is above 0); returns its value. */
  static double awaitStalled(EngineProcess e, String name) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    double last = -1;
    long since = System.nanoTime();
    while (System.nanoTime() < deadline) {
      double v = metric(e, name);
      if (v != last || v == 0) {
        last = v;
        since = System.nanoTime();
      } else if (System.nanoTime() - since > 3_000_000_000L) {
        return v;
      }
      Thread.sleep(250);
    }
    throw new AssertionError(name + " never stopped moving: " + last);
  }

  @Test
  void aClientThatStopsReadingHoldsItsRequestAndLaterGetsEveryToken() throws Exception {
    double before = metric(patient, "completion_tokens_total");
    // the unhurried client's answer, from the other engine (same model) while this one is held
    CompletableFuture<HttpJson.Reply> unhurried = CompletableFuture.supplyAsync(() -> {
      try {
        return strict.http().post("/v1/completions", request(false));
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    });
    try (Socket s = sendUnread(patient, request(true))) {
      double stalled = awaitStalled(patient, "completion_tokens_total") - before;
      assertTrue(stalled < N * MAX_TOKENS * 0.75, "generation went on for an unread stream: "
          + stalled + " of " + N * MAX_TOKENS + " tokens");
      assertEquals(N, metric(patient, "running"), "the held request keeps its sequences and KV");
      System.out.printf("SlowStreamingClientIT: held after %.0f of %d tokens%n", stalled, N * MAX_TOKENS);

      s.setSoTimeout(120_000);
      HttpJson.Reply streamed = new HttpJson.Reply(200, chunkedBody(s.getInputStream()));
      JsonObject usage = streamed.events().get(streamed.events().size() - 1).getJsonObject("usage");
      assertEquals(N * MAX_TOKENS, usage.getInteger("completion_tokens"));
      JsonObject whole = unhurried.get(120, TimeUnit.SECONDS).json();
      assertEquals(whole.getJsonObject("usage").getJsonObject("extra").getJsonArray("output_token_ids"),
          usage.getJsonObject("extra").getJsonArray("output_token_ids"),
          "holding a request changed none of its tokens");
    }
  }

  @Test
  void aClientStalledPastTheLimitIsCutOffAndItsRequestFreed() throws Exception {
    double aborted = metric(strict, "requests_aborted_total");
    try (Socket s = sendUnread(strict, request(true))) {
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (metric(strict, "requests_aborted_total") == aborted && System.nanoTime() < deadline) {
        Thread.sleep(250);
      }
      assertEquals(aborted + 1, metric(strict, "requests_aborted_total"));
      assertEquals(0, metric(strict, "running"));
      assertTrue(strict.log().contains("closing its stream and freeing the request"), strict.log());
      s.setSoTimeout(60_000);
      String body;
      try {
        body = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException reset) {
        body = "";
      }
      assertFalse(body.contains("[DONE]"), "a cut stream must not look complete");
    }
    assertEquals(200, strict.http().post("/v1/completions",
        request(false).put("max_tokens", 4).put("n", 1)).status());
  }

  /** Reads an HTTP/1.1 response to its end and returns its de-chunked body after checking 200. */
  static String chunkedBody(InputStream in) throws IOException {
    String head = line(in);
    assertTrue(head.startsWith("HTTP/1.1 200"), head);
    boolean chunked = false;
    for (String h = line(in); !h.isEmpty(); h = line(in)) {
      chunked |= h.toLowerCase().startsWith("transfer-encoding: chunked");
    }
    assertTrue(chunked, "SSE is sent chunked");
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      int size = Integer.parseInt(line(in).split(";")[0].trim(), 16);
      if (size == 0) {
        return body.toString(StandardCharsets.UTF_8);
      }
      body.write(in.readNBytes(size));
      line(in);
    }
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new IOException("connection ended mid-line: " + b);
      }
      if (c != '\r') {
        b.write(c);
      }
    }
    return b.toString(StandardCharsets.US_ASCII);
  }
}
