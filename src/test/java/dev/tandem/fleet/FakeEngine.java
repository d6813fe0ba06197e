package dev.tandem.fleet;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A FAKE engine process, used only to provoke what a real engine will not do on demand (exit before
 * it is ready, never become ready, crash right after it is ready, report a long waiting queue while
 * idle). It answers GET /v1/models and /health with 200; {@code POST /debug/dump_engine_metrics}
 * with the builtin engine's load fields (running and waiting as set, 100 of 128 KV pages free);
 * {@code POST /v1/completions} with a one-token SSE answer whose text is {@code engine <port>}, so
 * a test sees who served it. Test hooks: {@code POST /fake/load} with {@code {"running": R,
 * "waiting": W}} sets the load it reports; {@code GET /fake/stats} counts completions, load reads
 * and {@code GET /metrics} requests. Arguments: {@code PORT [--ready-after-ms N]
 * [--exit-after-ms N] [--exit-code C] [--say TEXT] [--running R] [--waiting W]}; the real-engine
 * tests are the *IT classes. Plain JDK only: it runs with the test classes alone on its class path.
 */
public final class FakeEngine {
  private static final Pattern RUNNING = Pattern.compile("\"running\"\\s*:\\s*(\\d+)");
  private static final Pattern WAITING = Pattern.compile("\"waiting\"\\s*:\\s*(\\d+)");

  private static volatile int running;
  private static volatile int waiting;
  private static final AtomicInteger completions = new AtomicInteger();
  private static final AtomicInteger loadReads = new AtomicInteger();
  private static final AtomicInteger metricsScrapes = new AtomicInteger();

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    long readyAfter = 0;
    long exitAfter = -1;
    int exitCode = 0;
    for (int i = 1; i < args.length; i += 2) {
      switch (args[i]) {
        case "--ready-after-ms" -> readyAfter = Long.parseLong(args[i + 1]);
        case "--exit-after-ms" -> exitAfter = Long.parseLong(args[i + 1]);
        case "--exit-code" -> exitCode = Integer.parseInt(args[i + 1]);
        case "--say" -> System.out.println(args[i + 1]);
        case "--running" -> running = Integer.parseInt(args[i + 1]);
        case "--waiting" -> waiting = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException(args[i]);
      }
    }
    System.out.println("fake engine pid " + ProcessHandle.current().pid() + " on port " + port);
    System.out.flush();
    if (exitAfter >= 0 && exitAfter <= readyAfter) {
      Thread.sleep(exitAfter);
      System.out.println("fake engine exits with code " + exitCode + " before it is ready");
      System.exit(exitCode);
    }
    Thread.sleep(readyAfter);
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 50);
    server.createContext("/", exchange -> handle(exchange, port));
    server.start();
    System.out.println("fake engine listening");
    if (exitAfter >= 0) {
      Thread.sleep(exitAfter - readyAfter);
      System.out.println("fake engine exits with code " + exitCode);
      System.exit(exitCode);
    }
    new CountDownLatch(1).await();
  }

  private static void handle(HttpExchange exchange, int port) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String route = exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath();
    switch (route) {
      case "POST /debug/dump_engine_metrics" -> {
        loadReads.incrementAndGet();
        send(exchange, "application/json", "{\"metrics\": {\"prompt_tokens_sum\": 0, \"running\": "
            + running + ", \"waiting\": " + waiting
            + ", \"kv_pages_free\": 100, \"kv_pages_total\": 128}}");
      }
      case "POST /fake/load" -> {
        running = number(RUNNING, body, running);
        waiting = number(WAITING, body, waiting);
        send(exchange, "application/json", "{}");
      }
      case "GET /fake/stats" -> send(exchange, "application/json", "{\"completions\": "
          + completions.get() + ", \"loadReads\": " + loadReads.get() + ", \"metricsScrapes\": "
          + metricsScrapes.get() + "}");
      case "POST /v1/completions" -> {
        completions.incrementAndGet();
        String envelope = "{\"id\": \"fake\", \"object\": \"text_completion\", \"created\": 0, "
            + "\"model\": null, ";
        send(exchange, "text/event-stream", "data: " + envelope + "\"choices\": [{\"index\": 0, "
            + "\"text\": \"engine " + port + "\", \"logprobs\": null, \"finish_reason\": \"stop\", "
            + "\"token_ids\": [7]}], \"usage\": null}\n\n"
            + "data: " + envelope + "\"choices\": [], \"usage\": {\"prompt_tokens\": 1, "
            + "\"completion_tokens\": 1, \"total_tokens\": 2, \"extra\": {\"output_token_ids\": "
            + "[[7]]}}}\n\ndata: [DONE]\n\n");
      }
      default -> {
        if (route.equals("GET /metrics")) {
          metricsScrapes.incrementAndGet();
        }
        send(exchange, "application/json", "{\"object\":\"list\",\"data\":[]}");
      }
    }
  }

  private static int number(Pattern field, String json, int fallback) {
    Matcher m = field.matcher(json);
    return m.find() ? Integer.parseInt(m.group(1)) : fallback;
  }

  private static void send(HttpExchange exchange, String type, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("content-type", type);
    exchange.sendResponseHeaders(200, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  private FakeEngine() {}
}
