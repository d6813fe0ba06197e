package dev.tandem.supervisor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** /proc views of processes for the process tests (the jar and the model: dev.tandem.testing). */
final class ProcessTools {
  private ProcessTools() {}

  /** Live processes whose command line contains {@code marker} (e.g. a test's unique model path). */
  static List<Long> processesMentioning(String marker) {
    List<Long> pids = new ArrayList<>();
    ProcessHandle.allProcesses().forEach(p -> {
      if (p.pid() != ProcessHandle.current().pid() && cmdline(p.pid()).contains(marker)) {
        pids.add(p.pid());
      }
    });
    return pids;
  }

  /** The command line of a process as one space-separated string ("" when gone). */
  static String cmdline(long pid) {
    try {
      return new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")),
          StandardCharsets.UTF_8).replace('\0', ' ').trim();
    } catch (IOException e) {
      return "";
    }
  }

  /** The environment a process was started with. */
  static Map<String, String> environ(long pid) throws IOException {
    Map<String, String> env = new HashMap<>();
    String raw = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ")),
        StandardCharsets.UTF_8);
    for (String entry : raw.split("\0")) {
      int eq = entry.indexOf('=');
      if (eq > 0) {
        env.put(entry.substring(0, eq), entry.substring(eq + 1));
      }
    }
    return env;
  }

  /** Waits until none of {@code pids} is alive; returns those still alive after {@code millis}. */
  static List<Long> awaitGone(List<Long> pids, long millis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    List<Long> alive;
    do {
      alive = pids.stream().filter(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive)
          .orElse(false)).toList();
      if (alive.isEmpty()) {
        return alive;
      }
      Thread.sleep(50);
    } while (System.nanoTime() < deadline);
    return alive;
  }
}
