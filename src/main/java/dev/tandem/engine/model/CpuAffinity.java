package dev.tandem.engine.model;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import com.sun.jna.NativeLong;
import java.util.ArrayList;
import java.util.List;

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
   * Whether threads can be restricted to {@code cpus} here (Linux, CPUs in range, the affinity
   * calls answer), without restricting any.
   */
  static boolean canPin(List<Integer> cpus) {
    return linux() && mask(cpus) != null && call("sched_getaffinity", 0, new long[MASK_LONGS]);
  }

  /** Restricts the calling thread (only) to {@code cpus}; false if not possible. */
  static boolean pinCurrentThread(List<Integer> cpus) {
    long[] mask = linux() ? mask(cpus) : null;
    return mask != null && call("sched_setaffinity", 0, mask); // tid 0: the calling thread
  }

  private static long[] mask(List<Integer> cpus) {
    if (cpus.isEmpty()) {
      return null;
    }
    long[] mask = new long[MASK_LONGS];
    for (int c : cpus) {
      if (c < 0 || c >= MASK_LONGS * 64) {
        return null;
      }
      mask[c >> 6] |= 1L << (c & 63);
    }
    return mask;
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
