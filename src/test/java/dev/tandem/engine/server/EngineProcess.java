package dev.tandem.engine.server;

import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TandemJar;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A {@code tandem serve} child JVM started from the tandem jar for process tests. */
public final class EngineProcess implements AutoCloseable {
  private final Process process;
  private final Path log;
  private final int port;
  private final HttpJson http;

  private EngineProcess(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
    this.http = new HttpJson("127.0.0.1", port);
  }

  /** Starts {@code serve MODEL --host 127.0.0.1 --port <free> args...} and waits for /v1/models. */
  public static EngineProcess serve(Path model, Map<String, String> env, String... args)
      throws Exception {
    int port = FreePorts.one();
    return start(serveCommand(model, port, args), env, port);
  }

  /** Starts an exact command line whose engine listens on {@code port}; waits until it is ready. */
  public static EngineProcess start(List<String> command, Map<String, String> env, int port)
      throws Exception {
    EngineProcess e = launch(command, env, port);
    e.awaitReady(Duration.ofSeconds(90));
    return e;
  }

  /** Starts without waiting (engines of one world must all start before any is ready). */
  public static EngineProcess launch(List<String> command, Map<String, String> env, int port)
      throws IOException {
    Path log = Files.createTempFile("engine-" + port, ".log");
    ProcessBuilder pb = TandemJar.process(command).redirectOutput(log.toFile());
    pb.environment().putAll(env);
    return new EngineProcess(pb.start(), log, port);
  }

  /** {@code serve} arguments for {@link #launch}: model, extra args, loopback host, the port. */
  public static List<String> serveCommand(Path model, int port, String... args) {
    List<String> all = new ArrayList<>(List.of("serve", model.toString()));
    all.addAll(Arrays.asList(args));
    all.addAll(List.of("--host", "127.0.0.1", "--port", Integer.toString(port)));
    return TandemJar.command("384m", all.toArray(String[]::new));
  }

  /** Polls GET /v1/models like PopenServer's probe until 200; fails early if the child died. */
  public long awaitReady(Duration limit) throws Exception {
    long start = System.nanoTime();
    long deadline = start + limit.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("engine exited with " + process.exitValue() + ":\n" + log());
      }
      try {
        if (http.get("/v1/models").status() == 200) {
          return (System.nanoTime() - start) / 1_000_000;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(100);
    }
    String output = log();
    close();
    throw new IllegalStateException("engine not ready within " + limit + ":\n" + output);
  }

  public HttpJson http() {
    return http;
  }

  public int port() {
    return port;
  }

  public Process process() {
    return process;
  }

  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try {
      Files.deleteIfExists(log);
    } catch (IOException ignored) {
      // a leftover temp file is harmless
    }
  }
}
