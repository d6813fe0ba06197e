package dev.tandem.engine.model;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The CPU cores one engine computes on: how many model threads it runs and, when pinned, which
 * CPUs its process is restricted to.
 *
 * <p>{@code --device cpu:S} with {@code tensor_parallel_shards=G} (MLC's own key for the number of
 * devices an engine runs on; MLC's worker k uses device S + k) means cores S .. S + G - 1, taken
 * in order among the CPUs this process may use and wrapping around, so that a fleet's engines
 * {@code cpu:0}, {@code cpu:1}, {@code cpu:2} with one device each on a 2-core machine share it
 * out (0, 1, 0) instead of each running threads on every core.
 *
 * @param threads model threads (the step thread included)
 * @param cpus the CPUs it runs on
 * @param pinned whether the model's threads are restricted to {@code cpus} (Linux)
 */
public record CoreBudget(int threads, List<Integer> cpus, boolean pinned) {
  public CoreBudget {
    cpus = List.copyOf(cpus);
    if (threads < 1) {
      throw new IllegalArgumentException("a core budget needs at least one thread, got " + threads);
    }
  }

  /** Every CPU the process may use, unpinned: an engine started by hand without a device count. */
  public static CoreBudget all() {
    List<Integer> cpus = CpuAffinity.allowed();
    return new CoreBudget(cpus.size(), cpus, false);
  }

  /**
   * Cores {@code first .. first + count - 1} (device indices, wrapped over the allowed CPUs), not
   * yet pinned; more cores than the machine has give each CPU once.
   */
  public static CoreBudget devices(int first, int count) {
    if (first < 0 || count < 1) {
      throw new IllegalArgumentException("cores " + first + " + " + count + ": need first >= 0 and count >= 1");
    }
    List<Integer> allowed = CpuAffinity.allowed();
    LinkedHashSet<Integer> chosen = new LinkedHashSet<>();
    for (int i = 0; i < count && chosen.size() < allowed.size(); i++) {
      chosen.add(allowed.get((int) ((first + (long) i) % allowed.size())));
    }
    return new CoreBudget(chosen.size(), new ArrayList<>(chosen), false);
  }

  /**
   * This budget with its model threads to be restricted to {@link #cpus} (each pins itself,
   * {@link #pinCurrentThread}); {@code pinned} says whether the OS allows it. Only the model's
   * threads: the JVM's compiler, collector and I/O threads stay free to use every core, so an
   * engine's start-up (mostly JIT) is not squeezed onto its one core.
   */
  public CoreBudget pin() {
    return new CoreBudget(threads, cpus, CpuAffinity.canPin(cpus));
  }

  /** Restricts the calling thread (a model thread) to {@link #cpus} when this budget is pinned. */
  public void pinCurrentThread() {
    if (pinned) {
      CpuAffinity.pinCurrentThread(cpus);
    }
  }

  /** {@code 0-3,6}. */
  public String cpuList() {
    List<Integer> sorted = cpus.stream().sorted().toList();
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < sorted.size(); ) {
      int j = i;
      while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
        j++;
      }
      parts.add(i == j ? "" + sorted.get(i) : sorted.get(i) + "-" + sorted.get(j));
      i = j + 1;
    }
    return parts.stream().collect(Collectors.joining(","));
  }

  /** {@code 2 threads on CPUs 0-1 (pinned)}, for logs. */
  public String describe() {
    return threads + (threads == 1 ? " thread" : " threads") + " on CPUs " + cpuList()
        + (pinned ? " (pinned)" : " (not pinned)");
  }
}
