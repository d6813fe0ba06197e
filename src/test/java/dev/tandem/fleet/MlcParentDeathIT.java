package dev.tandem.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TandemJar;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * MLC engines cannot watch their parent, so they run under {@code setpriv --pdeathsig KILL}: a
 * {@code kill -9} of the router process must take them down. The engine is a FAKE python that only
 * sleeps (no MLC here); the command, wrapper, launcher thread and EngineVerticle are the real ones.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MlcParentDeathIT {
  @TempDir Path dir;

  @Test
  void kill9OfTheRouterKillsTheMlcEngine() throws Exception {
    assumeTrue(Files.isExecutable(MlcProfile.SETPRIV), "no /usr/bin/setpriv here");
    Path python = dir.resolve("python");
    Files.writeString(python, "#!/bin/sh\nexec sleep 300\n");
    Files.setPosixFilePermissions(python, PosixFilePermissions.fromString("rwxr-xr-x"));
    Process router = TandemJar.process(TandemJar.probeCommand("128m", MlcEngineHostProbe.class,
        python.toString(), Integer.toString(FreePorts.one()), dir.resolve("engine-0.log").toString()))
        .start();
    try {
      long pid = CompletableFuture.supplyAsync(() -> enginePid(router))
          .get(40, TimeUnit.SECONDS);
      assertTrue(pid > 0, "the probe reported the engine's pid");
      ProcessHandle engine = ProcessHandle.of(pid).orElseThrow();
      assertEquals(List.of("300"), List.of(engine.info().arguments().orElseThrow()),
          "the engine is the fake python's sleep, exec'd under setpriv");
      router.destroyForcibly();
      assertTrue(router.waitFor(10, TimeUnit.SECONDS));
      long t0 = System.nanoTime();
      while (engine.isAlive() && System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5)) {
        Thread.sleep(20);
      }
      assertTrue(!engine.isAlive(), "engine alive 5 s after kill -9 of its router");
    } finally {
      router.destroyForcibly();
    }
  }

  /** Reads the probe's output until it names the engine's pid; -1 when it ends first. */
  private static long enginePid(Process router) {
    try (BufferedReader out = new BufferedReader(new InputStreamReader(router.getInputStream(),
        StandardCharsets.UTF_8))) {
      for (String line; (line = out.readLine()) != null; ) {
        if (line.startsWith("engine pid ")) {
          return Long.parseLong(line.substring(11).trim());
        }
      }
    } catch (java.io.IOException e) {
      return -1;
    }
    return -1;
  }
}
