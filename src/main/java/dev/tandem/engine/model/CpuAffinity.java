package dev.tandem.engine.model;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import com.sun.jna.NativeLong;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Linux CPU affinity through libc's {@code sched_getaffinity}/{@code sched_setaffinity} (JNA). Elsewhere, or
 * if the calls fail, nothing is pinned and every CPU counts as allowed.
 */
final class CpuAffinity {
  /** cpu_set_t: 1024 bits. */
  private static final int MASK_LONGS = 16;

  private CpuAffinity() {}

  /** The CPUs this process may run on, ascending (0 .. n-1 where they cannot be read). */
  static List<Integer> allowed() {
    List<Integer> cpus = new ArrayList<>();
    long[] mask = new long[MASK_LONGS];
    if (linux() && call("sched_getaffinity", 0, mask)) {
      for (int i = 0; i < MASK_LONGS * 64; i++) {
        if ((mask[i >> 6] & (1L << (i & 63))) != 0) {
          cpus.add(i);
        }
      }
    }
    if (cpus.isEmpty()) {
      for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
        cpus.add(i);
      }
    }
    return cpus;
  }

  /**
   * Restricts every thread of this process to {@code cpus} (threads started later inherit it from
   * their creator, so the whole JVM stays there, as under {@code taskset}). False if not possible.
   */
  static boolean pinProcess(List<Integer> cpus) {
    if (!linux() || cpus.isEmpty()) {
      return false;
    }
    long[] mask = new long[MASK_LONGS];
    for (int c : cpus) {
      if (c < 0 || c >= MASK_LONGS * 64) {
        return false;
      }
      mask[c >> 6] |= 1L << (c & 63);
    }
    List<Integer> tids = new ArrayList<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      tasks.forEach(t -> tids.add(Integer.parseInt(t.getFileName().toString())));
    } catch (IOException | NumberFormatException e) {
      return false;
    }
    boolean all = true;
    for (int tid : tids) {
      all &= call("sched_setaffinity", tid, mask) || !Files.exists(Path.of("/proc/self/task/" + tid));
    }
    return all;
  }

  private static boolean linux() {
    return System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).startsWith("linux");
  }

  private static boolean call(String name, int tid, long[] mask) {
    try {
      Function f = NativeLibrary.getInstance("c").getFunction(name);
      return f.invokeInt(new Object[] {tid, new NativeLong(mask.length * 8L), mask}) == 0;
    } catch (UnsatisfiedLinkError | RuntimeException e) {
      return false;
    }
  }
}
