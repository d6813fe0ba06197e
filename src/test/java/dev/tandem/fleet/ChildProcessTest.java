package dev.tandem.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Real child processes (sh): output capture, exit codes, stopping the whole tree. */
@Timeout(30)
class ChildProcessTest {
  @TempDir Path dir;

  @Test
  void outputGoesToTheLogFileAndTheLastFiftyLinesAreKept() throws Exception {
    Path log = dir.resolve("logs/engine-0.log");
    ChildProcess child = ChildProcess.start(List.of("sh", "-c",
            "for i in $(seq 1 120); do echo line $i; done; echo \"env $TANDEM_TEST\" >&2; exit 3"),
        Map.of("TANDEM_TEST", "x42"), log, line -> { });
    assertEquals(3, child.onExit().get(10, TimeUnit.SECONDS));
    List<String> tail = child.tail();
    assertEquals(ChildProcess.TAIL_LINES, tail.size());
    assertEquals("line 72", tail.get(0));
    assertEquals("env x42", tail.get(tail.size() - 1), "stderr merged, extra env applied");
    List<String> logged = Files.readAllLines(log);
    assertTrue(logged.get(0).startsWith("==== tandem: "), logged.get(0));
    assertEquals(122, logged.size());
    assertTrue(child.tailText().contains("  | line 120"));
  }

  @Test
  void stopSendsSigtermToDescendantsAndTheProcess() throws Exception {
    List<String> lines = new CopyOnWriteArrayList<>();
    // The descendants get SIGTERM first: once the sleeper is gone a bare `wait` returns 0 and the
    // script would end with 0 before its own SIGTERM arrived (seen under load), so it waits on
    ChildProcess child = ChildProcess.start(List.of("sh", "-c",
        "trap 'echo got TERM; exit 0' TERM; sleep 300 & echo child $!; while :; do wait; done"),
        Map.of(), dir.resolve("tree.log"), lines::add);
    long grandchild = awaitChildPid(lines);
    ProcessHandle sleeper = ProcessHandle.of(grandchild).orElseThrow();
    long t0 = System.nanoTime();
    int code = child.stop(Duration.ofSeconds(10)).get(15, TimeUnit.SECONDS);
    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "exited on SIGTERM, no grace wait");
    assertEquals(0, code, "the trap ran: SIGTERM, not SIGKILL");
    assertFalse(sleeper.isAlive(), "descendant stopped too");
    // the trap's last line may reach the pump a moment after the exit was reported (seen once in CI)
    for (int i = 0; i < 100 && !child.tail().contains("got TERM"); i++) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
    assertTrue(child.tail().contains("got TERM"), child.tail().toString());
  }

  @Test
  void sigkillAfterTheGracePeriodWhenSigtermIsIgnored() throws Exception {
    List<String> lines = new CopyOnWriteArrayList<>();
    ChildProcess child = ChildProcess.start(List.of("sh", "-c",
        "trap '' TERM; echo child $$; while :; do sleep 0.2; done"), Map.of(),
        dir.resolve("stubborn.log"), lines::add);
    awaitChildPid(lines);
    long t0 = System.nanoTime();
    int code = child.stop(Duration.ofMillis(800)).get(15, TimeUnit.SECONDS);
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertTrue(ms >= 700, "waited for the grace period first: " + ms + " ms");
    assertEquals(128 + 9, code, "killed by SIGKILL");
    assertFalse(child.isAlive());
  }

  private static long awaitChildPid(List<String> lines) throws InterruptedException {
    for (int i = 0; i < 200; i++) {
      for (String line : lines) {
        if (line.startsWith("child ")) {
          return Long.parseLong(line.substring(6).trim());
        }
      }
      Thread.sleep(25);
    }
    throw new AssertionError("no 'child PID' line; got " + lines);
  }
}
