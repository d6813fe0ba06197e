package dev.tandem.engine.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.engine.kv.PagedKvCache;
import dev.tandem.engine.model.ForwardChunk;
import dev.tandem.engine.model.LlamaConfig;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Tokens are a function of the whole context read through the KV slots; time only passes. */
class SimForwardModelTest {

  private static SimForwardModel model(Pacer pacer) throws IOException {
    LlamaConfig vocab = new LlamaConfig(1024, 8, 8, 1, 1, 1, 8, 1e4, 1e-5, 4096, true, 0, 0);
    return new SimForwardModel(vocab, new StepTimeModel(SimProfile.load("h100-llama3-8b")), pacer);
  }

  private static int argmax(float[] l) {
    int best = 0;
    for (int i = 1; i < l.length; i++) {
      if (l[i] > l[best]) {
        best = i;
      }
    }
    return best;
  }

  private static int[] identity(int n, int offset) {
    int[] s = new int[n];
    for (int i = 0; i < n; i++) {
      s[i] = i + offset;
    }
    return s;
  }

  @Test
  void chunkedAndWholePrefillsGiveTheSameToken() throws IOException {
    SimForwardModel m = model(new Pacer.Virtual());
    int[] prompt = {5, 9, 13, 200, 7, 7, 44, 1000, 3};
    PagedKvCache a = new PagedKvCache(1, SimForwardModel.KV_DIM, 4);
    float[] whole = m.forward(List.of(new ForwardChunk(prompt, 0, identity(9, 0), true)), a)[0];
    PagedKvCache b = new PagedKvCache(1, SimForwardModel.KV_DIM, 4);
    int[] slots = identity(9, 20); // other slots, same positions
    m.forward(List.of(new ForwardChunk(java.util.Arrays.copyOf(prompt, 4), 0, java.util.Arrays.copyOf(slots, 4), false)), b);
    float[] chunked = m.forward(List.of(new ForwardChunk(java.util.Arrays.copyOfRange(prompt, 4, 9), 4, slots, true)), b)[0];
    assertArrayEquals(whole, chunked);
    int t = argmax(whole);
    assertTrue(t >= 3 && t < 1024, "a normal token: " + t);
  }

  @Test
  void aDifferentEarlyTokenChangesTheAnswer() throws IOException {
    SimForwardModel m = model(new Pacer.Virtual());
    PagedKvCache kv = new PagedKvCache(1, SimForwardModel.KV_DIM, 4);
    int x = argmax(m.forward(List.of(new ForwardChunk(new int[] {5, 6, 7, 8}, 0, identity(4, 0), true)), kv)[0]);
    int y = argmax(m.forward(List.of(new ForwardChunk(new int[] {4, 6, 7, 8}, 0, identity(4, 8), true)), kv)[0]);
    assertNotEquals(x, y);
  }

  @Test
  void eachStepAdvancesTheClockByTheRoofline() throws IOException {
    Pacer.Virtual clock = new Pacer.Virtual();
    SimForwardModel m = model(clock);
    List<ForwardChunk> step = List.of(new ForwardChunk(new int[] {5}, 0, new int[] {0}, true));
    m.forward(step, new PagedKvCache(1, SimForwardModel.KV_DIM, 1));
    assertEquals(new StepTimeModel(SimProfile.load("h100-llama3-8b")).stepNanos(step), clock.elapsedNanos());
  }

  @Test
  void theRealPacerSleepsWithoutSpinning() {
    long cpu0 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    Pacer.REAL.pass(50_000_000L);
    long wall = System.nanoTime() - t0;
    long cpu = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu0;
    assertTrue(wall >= 50_000_000L, "slept " + wall);
    assertTrue(cpu < 10_000_000L, "used " + cpu + " ns of CPU");
  }
}
