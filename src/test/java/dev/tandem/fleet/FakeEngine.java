package dev.tandem.fleet;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

/**
 * A FAKE engine process, used only to provoke what a real engine will not do on demand (exit before
 * it is ready, never become ready, crash right after it is ready). It answers GET /v1/models and
 * /health with 200. Arguments: {@code PORT [--ready-after-ms N] [--exit-after-ms N]
 * [--exit-code C] [--say TEXT]}; the real-engine tests are the *IT classes.
 */
public final class FakeEngine {
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
    server.createContext("/", exchange -> {
      byte[] body = "{\"object\":\"list\",\"data\":[]}".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    System.out.println("fake engine listening");
    if (exitAfter >= 0) {
      Thread.sleep(exitAfter - readyAfter);
      System.out.println("fake engine exits with code " + exitCode);
      System.exit(exitCode);
    }
    new CountDownLatch(1).await();
  }

  private FakeEngine() {}
}
