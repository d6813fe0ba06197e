package dev.tandem.client;

import dev.tandem.testing.TandemJar;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM of a process test: its output lines are kept (and copied to a log file) so the
 * test can wait for one, and it can be given lines on stdin. Used by ClusterBusIT for the router
 * JVMs and the bus-client application.
 */
final class JvmProcess implements AutoCloseable {
  private final Process process;
  private final Path log;
  private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> all = new ArrayList<>();

  private JvmProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
    Thread reader = new Thread(this::pump, "output of " + log.getFileName());
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code command} with {@code jvmOptions} inserted after the java executable. */
  static JvmProcess start(List<String> command, List<String> jvmOptions, Path log)
      throws IOException {
    List<String> cmd = new ArrayList<>(command);
    cmd.addAll(1, jvmOptions);
    return new JvmProcess(TandemJar.process(cmd).start(), log);
  }

  private void pump() {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        synchronized (all) {
          all.add(line);
        }
        Files.writeString(log, line + "\n", StandardCharsets.UTF_8,
            java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        lines.add(line);
      }
    } catch (IOException e) {
      lines.add("!! output lost: " + e);
    }
  }

  /** The next output line starting with {@code prefix} (others are skipped), or an error. */
  String await(String prefix, long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (true) {
      long left = deadline - System.nanoTime();
      String line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
      if (line == null) {
        throw new AssertionError("no line starting with '" + prefix + "' within " + timeoutMs
            + " ms" + (process.isAlive() ? "" : " (the process exited with " + process.exitValue()
                + ")") + "; output:\n" + output());
      }
      if (line.startsWith(prefix)) {
        return line.substring(prefix.length()).strip();
      }
    }
  }

  /** Waits for an output line that contains {@code text} (others are skipped). */
  void awaitContaining(String text, long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (true) {
      long left = deadline - System.nanoTime();
      String line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
      if (line == null) {
        throw new AssertionError("no line containing '" + text + "' within " + timeoutMs + " ms"
            + "; output:\n" + output());
      }
      if (line.contains(text)) {
        return;
      }
    }
  }

  void send(String line) throws IOException {
    OutputStream in = process.getOutputStream();
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  boolean alive() {
    return process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /** kill -9: no shutdown hook, no goodbye on the bus. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  String output() {
    synchronized (all) {
      List<String> tail = all.subList(Math.max(0, all.size() - 60), all.size());
      return String.join("\n", tail);
    }
  }

  /** SIGTERM, then kill -9 after {@code graceMs}. */
  void stop(long graceMs) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(graceMs, TimeUnit.MILLISECONDS)) {
      kill();
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop(15_000);
  }
}
