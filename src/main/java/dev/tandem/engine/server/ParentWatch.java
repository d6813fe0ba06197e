package dev.tandem.engine.server;

import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends this process when its parent (the router that started it) is gone, however it died:
 * SIGKILL leaves no chance to clean up children, so the child watches instead. The parent's
 * {@link ProcessHandle} is taken once, so a reused pid does not look alive.
 */
public final class ParentWatch {
  private static final Logger LOG = LoggerFactory.getLogger(ParentWatch.class);
  static final long PERIOD_MS = 500;

  private ParentWatch() {}

  /** Starts watching the pid in {@code pidText} (an env value); does nothing when it is null or blank. */
  public static void startFromEnv(String pidText) {
    if (pidText == null || pidText.isBlank()) {
      return;
    }
    long pid;
    try {
      pid = Long.parseLong(pidText.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("TANDEM_PARENT_PID=" + pidText + " is not a process id");
    }
    Optional<ProcessHandle> parent = ProcessHandle.of(pid);
    if (parent.isEmpty() || !parent.get().isAlive()) {
      LOG.error("parent process {} is already gone: exiting", pid);
      System.exit(1);
    }
    ProcessHandle handle = parent.get();
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "tandem-parent-watch");
      t.setDaemon(true);
      return t;
    });
    java.util.concurrent.atomic.AtomicBoolean exiting = new java.util.concurrent.atomic.AtomicBoolean();
    timer.scheduleWithFixedDelay(() -> {
      if (!handle.isAlive() && exiting.compareAndSet(false, true)) {
        LOG.warn("parent process {} is gone: exiting", pid);
        // shutdown hooks may hang on a wedged resource; make sure the process goes anyway
        timer.schedule(() -> Runtime.getRuntime().halt(1), 5, TimeUnit.SECONDS);
        new Thread(() -> System.exit(1), "tandem-parent-exit").start();
      }
    }, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
    LOG.info("watching parent process {}", pid);
  }
}
