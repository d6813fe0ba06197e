package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class CoreBudgetTest {
  private final List<Integer> allowed = CpuAffinity.allowed();

  @Test
  void devicesAreTakenInOrderAndWrapAroundTheAllowedCpus() {
    int n = allowed.size();
    CoreBudget first = CoreBudget.devices(0, 1);
    assertEquals(1, first.threads());
    assertEquals(List.of(allowed.get(0)), first.cpus());
    assertFalse(first.pinned(), "not pinned until pin()");
    // engine 'cpu:n' with one device lands on the first CPU again: engines share the machine out
    assertEquals(List.of(allowed.get(0)), CoreBudget.devices(n, 1).cpus());
    assertEquals(List.of(allowed.get((n + 1) % n)), CoreBudget.devices(n + 1, 1).cpus());
    // more devices than CPUs: each CPU once
    CoreBudget all = CoreBudget.devices(1, 3 * n);
    assertEquals(n, all.threads());
    assertEquals(n, all.cpus().stream().distinct().count());
    assertThrows(IllegalArgumentException.class, () -> CoreBudget.devices(0, 0));
  }

  /** Only the model's threads are pinned: the one that asks, not the process (Linux only). */
  @Test
  void pinningRestrictsTheCallingThreadOnly() throws Exception {
    CoreBudget one = CoreBudget.devices(0, 1).pin();
    org.junit.jupiter.api.Assumptions.assumeTrue(one.pinned(), "no thread affinity on this OS");
    String before = cpusAllowed("self");
    String[] inside = new String[1];
    Thread model = new Thread(() -> {
      one.pinCurrentThread();
      try {
        inside[0] = cpusAllowed("thread-self");
      } catch (java.io.IOException e) {
        inside[0] = e.toString();
      }
    });
    model.start();
    model.join();
    assertEquals(one.cpuList(), inside[0], "the model thread runs on its budget's CPU");
    assertEquals(before, cpusAllowed("self"), "the rest of the process is not restricted");
  }

  private static String cpusAllowed(String who) throws java.io.IOException {
    return java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/" + who + "/status"))
        .stream().filter(l -> l.startsWith("Cpus_allowed_list:")).findFirst().orElseThrow()
        .substring("Cpus_allowed_list:".length()).strip();
  }

  @Test
  void cpuListIsCompact() {
    assertEquals("0-3,6", new CoreBudget(5, List.of(6, 0, 1, 2, 3), false).cpuList());
    assertEquals("1", new CoreBudget(1, List.of(1), true).cpuList());
    assertEquals("2 threads on CPUs 0-1 (pinned)", new CoreBudget(2, List.of(0, 1), true).describe());
  }
}
