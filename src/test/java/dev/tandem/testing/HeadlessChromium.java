package dev.tandem.testing;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Debian's {@code chromium}, headless, driven over its DevTools protocol with a Vert.x WebSocket
 * client: one page target, commands as futures. Started with the flags a closed network and a
 * root user need (no sandbox, no GPU, no QUIC, no first-run, background networking, component
 * updates and sync off, so it makes no connection of its own) and a fresh profile folder that
 * {@link #close()} deletes. {@link #find()} is empty where chromium is not installed.
 */
public final class HeadlessChromium implements AutoCloseable {

  /** Every flag, and why: docs/operations.md lists them too. */
  public static final List<String> FLAGS = List.of(
      "--headless",                       // no display
      "--no-sandbox",                     // root in a container: the sandbox cannot start
      "--disable-gpu",                    // no GPU process
      "--disable-dev-shm-usage",          // a container's /dev/shm is small
      "--disable-quic",                   // no UDP probing on a closed network
      "--no-first-run",                   // no welcome page or default-browser check
      "--disable-background-networking", // no update checks, safe browsing lists, ...
      "--disable-component-update",       // no component downloads
      "--disable-sync",                   // no account sync
      "--hide-scrollbars",                // clean screenshots
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0");       // DevTools on a free port, printed on stderr

  private static final Pattern LISTENING = Pattern.compile("DevTools listening on (ws://\\S+)");

  private final Process process;
  private final Path profile;
  private final WebSocketClient client;
  private final WebSocket socket;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, Promise<JsonObject>> pending = new ConcurrentHashMap<>();

  private HeadlessChromium(Process process, Path profile, WebSocketClient client, WebSocket socket) {
    this.process = process;
    this.profile = profile;
    this.client = client;
    this.socket = socket;
    socket.textMessageHandler(text -> {
      JsonObject msg = new JsonObject(text);
      Integer id = msg.getInteger("id");
      Promise<JsonObject> p = id == null ? null : pending.remove(id);
      if (p == null) {
        return; // an event: not used
      }
      if (msg.containsKey("error")) {
        p.fail(msg.getJsonObject("error").encode());
      } else {
        p.complete(msg.getJsonObject("result", new JsonObject()));
      }
    });
  }

  /** The chromium binary: $CHROMIUM, else /usr/bin/chromium; null when there is none. */
  public static Path find() {
    String env = System.getenv("CHROMIUM");
    for (String candidate : new String[] {env, "/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
      if (candidate != null && Files.isExecutable(Path.of(candidate))) {
        return Path.of(candidate);
      }
    }
    return null;
  }

  /** Starts chromium with an empty page of {@code width} x {@code height} and attaches to it. */
  public static HeadlessChromium start(Vertx vertx, Path binary, int width, int height)
      throws Exception {
    Path profile = Files.createTempDirectory("tandem-chromium-");
    List<String> cmd = new java.util.ArrayList<>(List.of(binary.toString()));
    cmd.addAll(FLAGS);
    cmd.addAll(List.of("--user-data-dir=" + profile, "--window-size=" + width + "," + height,
        "about:blank"));
    Process process = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    CompletableFuture<String> browserUrl = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader err = new BufferedReader(new InputStreamReader(process.getErrorStream(),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = err.readLine()) != null) { // drained to the end, or chromium would block
          Matcher m = LISTENING.matcher(line);
          if (m.find()) {
            browserUrl.complete(m.group(1));
          }
        }
      } catch (IOException e) {
        browserUrl.completeExceptionally(e);
      }
      browserUrl.completeExceptionally(new IllegalStateException("chromium exited: "
          + process.exitValue()));
    }, "chromium-stderr");
    reader.setDaemon(true);
    reader.start();
    try {
      URI browser = URI.create(browserUrl.get(30, TimeUnit.SECONDS));
      String page = pageTarget(browser);
      WebSocketClient client = vertx.createWebSocketClient(new WebSocketClientOptions()
          .setMaxMessageSize(64 * 1024 * 1024).setMaxFrameSize(64 * 1024 * 1024));
      WebSocket socket = client.connect(browser.getPort(), browser.getHost(),
          URI.create(page).getPath()).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      return new HeadlessChromium(process, profile, client, socket);
    } catch (Exception e) {
      process.destroyForcibly();
      delete(profile);
      throw e;
    }
  }

  /** The first page target's WebSocket URL, from the DevTools HTTP endpoint. */
  private static String pageTarget(URI browser) throws Exception {
    java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
        .version(java.net.http.HttpClient.Version.HTTP_1_1).build();
    String list = http.send(java.net.http.HttpRequest.newBuilder(URI.create("http://"
            + browser.getHost() + ":" + browser.getPort() + "/json/list")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    for (Object o : new io.vertx.core.json.JsonArray(list)) {
      JsonObject target = (JsonObject) o;
      if ("page".equals(target.getString("type"))) {
        return target.getString("webSocketDebuggerUrl");
      }
    }
    throw new IllegalStateException("chromium has no page target: " + list);
  }

  /** One DevTools command on the page; completes with its result. */
  public Future<JsonObject> send(String method, JsonObject params) {
    int id = ids.incrementAndGet();
    Promise<JsonObject> p = Promise.promise();
    pending.put(id, p);
    socket.writeTextMessage(new JsonObject().put("id", id).put("method", method)
        .put("params", params).encode()).onFailure(p::tryFail);
    return p.future();
  }

  /** Blocking form of {@link #send}, for test threads. */
  public JsonObject call(String method, JsonObject params) throws Exception {
    return send(method, params).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  /** Evaluates {@code expression} in the page and returns its JSON value. */
  public Object eval(String expression) throws Exception {
    JsonObject r = call("Runtime.evaluate", new JsonObject().put("expression", expression)
        .put("returnByValue", true).put("awaitPromise", true));
    if (r.containsKey("exceptionDetails")) {
      throw new IllegalStateException("page threw: " + r.getJsonObject("exceptionDetails").encode());
    }
    return r.getJsonObject("result").getValue("value");
  }

  /** A PNG of the page as it is drawn now. */
  public byte[] screenshot() throws Exception {
    String data = call("Page.captureScreenshot", new JsonObject().put("format", "png"))
        .getString("data");
    return java.util.Base64.getDecoder().decode(data);
  }

  @Override
  public void close() {
    try {
      socket.close();
      client.close();
    } finally {
      process.destroy();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      delete(profile);
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary folder: best effort
    }
  }
}
