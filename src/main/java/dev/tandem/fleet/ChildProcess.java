package dev.tandem.fleet;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running engine process. Its stdout and stderr go, line by line, to a log file (appended, so
 * restarts keep the history) through a dedicated pump thread that also keeps the last
 * {@link #TAIL_LINES} lines for error messages. Stopping signals the whole process tree.
 *
 * <p>All methods are non-blocking except {@link #start}, which forks (run it off event loops).
 */
public final class ChildProcess {
  public static final int TAIL_LINES = 50;
  private static final Logger LOG = LoggerFactory.getLogger(ChildProcess.class);
  /** After the process exits, how long to wait for the pump to drain what it wrote last. */
  private static final long DRAIN_MS = 1000;
  /** After SIGKILL, how long to wait for the kernel to reap the tree. */
  private static final long KILL_WAIT_MS = 5000;
  /**
   * Finding a process tree scans /proc (every process on the machine): callers are event loops,
   * so the scan and the signals run here.
   */
  private static final Executor SIGNALS = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "tandem-child-signals");
    t.setDaemon(true);
    return t;
  });

  private final Process process;
  private final Path logFile;
  private final ArrayDeque<String> tail = new ArrayDeque<>(TAIL_LINES);
  private final CompletableFuture<Void> drained = new CompletableFuture<>();
  private final CompletableFuture<Integer> exit;

  private ChildProcess(Process process, Path logFile) {
    this.process = process;
    this.logFile = logFile;
    this.exit = process.onExit()
        .thenCompose(p -> drained.completeOnTimeout(null, DRAIN_MS, TimeUnit.MILLISECONDS))
        .thenApply(v -> process.exitValue());
  }

  /**
   * Starts {@code argv} (no shell) with the router's environment plus {@code extraEnv}, output
   * appended to {@code logFile}; every output line is also handed to {@code lineListener} on the
   * pump thread. Blocking: forks the process.
   */
  public static ChildProcess start(List<String> argv, Map<String, String> extraEnv, Path logFile,
      Consumer<String> lineListener) throws IOException {
    Path parent = logFile.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    BufferedWriter log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    try {
      log.write("==== tandem: " + Instant.now() + " starting: " + String.join(" ", argv)
          + (extraEnv.isEmpty() ? "" : " (env " + extraEnv.keySet() + ")"));
      log.newLine();
      log.flush();
      ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
      builder.environment().putAll(extraEnv);
      Process process = builder.start();
      ChildProcess child = new ChildProcess(process, logFile);
      Thread pump = new Thread(() -> child.pump(log, lineListener),
          "tandem-output-" + process.pid());
      pump.setDaemon(true);
      pump.start();
      return child;
    } catch (IOException | RuntimeException e) {
      log.close();
      throw e;
    }
  }

  public long pid() {
    return process.pid();
  }

  public Path logFile() {
    return logFile;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Completes with the exit code once the process has exited and its last output is logged. */
  public CompletableFuture<Integer> onExit() {
    return exit;
  }

  /** The last lines the process wrote, oldest first. */
  public List<String> tail() {
    synchronized (tail) {
      return new ArrayList<>(tail);
    }
  }

  /** The last lines as one indented block for error messages, or a note that there were none. */
  public String tailText() {
    List<String> lines = tail();
    if (lines.isEmpty()) {
      return "  (no output)";
    }
    return lines.stream().map(line -> "  | " + line).collect(Collectors.joining("\n"));
  }

  /**
   * SIGTERM to every descendant, then to the process; after {@code grace}, SIGKILL to whatever of
   * the tree is left. Completes when the whole tree is gone (or 5 s after the SIGKILL), with the
   * exit code of the process. Idempotent.
   */
  public CompletableFuture<Integer> stop(Duration grace) {
    return CompletableFuture.supplyAsync(() -> {
      List<ProcessHandle> tree = tree();
      tree.forEach(ProcessHandle::destroy);
      return tree;
    }, SIGNALS).thenCompose(tree -> allExited(tree)
        .completeOnTimeout(null, grace.toMillis(), TimeUnit.MILLISECONDS)
        .thenCompose(v -> kill(tree)));
  }

  /** SIGKILL to the whole tree at once (aborts); completes when it is gone. */
  public CompletableFuture<Integer> kill() {
    return CompletableFuture.supplyAsync(this::tree, SIGNALS).thenCompose(this::kill);
  }

  private CompletableFuture<Integer> kill(List<ProcessHandle> tree) {
    List<ProcessHandle> alive = tree.stream().filter(ProcessHandle::isAlive).toList();
    if (!alive.isEmpty()) {
      LOG.debug("SIGKILL to {} process(es) of {}", alive.size(), process.pid());
      alive.forEach(ProcessHandle::destroyForcibly);
    }
    return allExited(tree).completeOnTimeout(null, KILL_WAIT_MS, TimeUnit.MILLISECONDS)
        .thenCompose(v -> exit.completeOnTimeout(-1, KILL_WAIT_MS, TimeUnit.MILLISECONDS));
  }

  /** Descendants first (deepest last is not needed: all get the signal before anyone waits). */
  private List<ProcessHandle> tree() {
    List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
    tree.add(process.toHandle());
    return tree;
  }

  private static CompletableFuture<Void> allExited(List<ProcessHandle> tree) {
    return CompletableFuture.allOf(tree.stream().map(ProcessHandle::onExit)
        .toArray(CompletableFuture[]::new));
  }

  private void pump(BufferedWriter log, Consumer<String> lineListener) {
    try (log; BufferedReader in = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        synchronized (tail) {
          if (tail.size() == TAIL_LINES) {
            tail.removeFirst();
          }
          tail.addLast(line);
        }
        log.write(line);
        log.newLine();
        log.flush();
        try {
          lineListener.accept(line);
        } catch (RuntimeException e) {
          LOG.warn("output listener of process {} failed: {}", process.pid(), e.toString());
        }
      }
    } catch (IOException e) {
      LOG.warn("lost output of process {} (log {}): {}", process.pid(), logFile, e.toString());
    } finally {
      drained.complete(null);
    }
  }
}
